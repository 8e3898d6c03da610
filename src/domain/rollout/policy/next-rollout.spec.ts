import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chooseNextRollout, type RolloutCandidate } from './next-rollout.js';

const JAN_1 = Date.UTC(2026, 0, 1);
const JAN_2 = Date.UTC(2026, 0, 2);
const JAN_3 = Date.UTC(2026, 0, 3);

function candidate(overrides: Partial<RolloutCandidate> & Pick<RolloutCandidate, 'id'>): RolloutCandidate {
  return {
    name: `r${overrides.id}`,
    priority: 1,
    startDate: JAN_1,
    downgrade: false,
    offerWhen: 'newer',
    firmwareId: 100 + overrides.id,
    version: '2.0.0',
    state: 'pending',
    wave: 1,
    currentWave: 1,
    waveCount: 1,
    ...overrides,
  };
}

/** All orderings of a small list, so a choice can't depend on the input order. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

function chosenId(candidates: readonly RolloutCandidate[], current: string): number | null {
  return chooseNextRollout(candidates, current)?.id ?? null;
}

describe(chooseNextRollout.name, () => {
  it('returns null when there are no candidates', () => {
    assert.equal(chooseNextRollout([], '1.0.0'), null);
  });

  it('returns the candidate object itself', () => {
    const only = candidate({ id: 7, version: '1.1.0' });
    assert.equal(chooseNextRollout([only], '1.0.0'), only);
  });

  describe('only upgrades unless marked as a downgrade (docs/decisions.md §8)', () => {
    it('offers a newer version', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '1.1.0' })], '1.0.0'), 1);
    });

    it('orders numerically: 1.10 is an upgrade from 1.9', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '1.10' })], '1.9'), 1);
    });

    it('does not offer 1.9 to a device on 1.10', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '1.9' })], '1.10'), null);
    });

    it('does not offer an older version that is not marked as a downgrade', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '0.9.0' })], '1.0.0'), null);
    });

    it('offers an older version when the rollout is marked as a downgrade', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '0.9.0', downgrade: true })], '1.0.0'), 1);
    });

    it('a downgrade-marked rollout to a newer version is still offered', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '3.0.0', downgrade: true })], '1.0.0'), 1);
    });

    it('skips a more urgent non-upgrade in favour of a less urgent upgrade', () => {
      const candidates = [candidate({ id: 1, priority: 1, version: '0.5.0' }), candidate({ id: 2, priority: 9, version: '1.1.0' })];
      assert.equal(chosenId(candidates, '1.0.0'), 2);
    });

    it('returns null when no candidate qualifies', () => {
      const candidates = [
        candidate({ id: 1, version: '0.5.0' }),
        candidate({ id: 2, version: '1.0.0' }),
        candidate({ id: 3, version: '0.9.9' }),
      ];
      assert.equal(chosenId(candidates, '1.0.0'), null);
    });
  });

  describe('never the version the device already runs', () => {
    it('skips the same version', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '1.0.0' })], '1.0.0'), null);
    });

    it('skips the same version even when marked as a downgrade', () => {
      assert.equal(chosenId([candidate({ id: 1, version: '1.0.0', downgrade: true })], '1.0.0'), null);
    });

    it('picks the other rollout when the most urgent one is the current version', () => {
      const candidates = [
        candidate({ id: 1, priority: 1, version: '1.0.0', downgrade: true }),
        candidate({ id: 2, priority: 5, version: '1.0.1' }),
      ];
      assert.equal(chosenId(candidates, '1.0.0'), 2);
    });
  });

  describe('ranking', () => {
    it('picks the lowest priority number (1 is most urgent)', () => {
      const candidates = [
        candidate({ id: 1, priority: 3, startDate: JAN_1 }),
        candidate({ id: 2, priority: 1, startDate: JAN_3 }),
        candidate({ id: 3, priority: 2, startDate: JAN_1 }),
      ];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 2);
    });

    it('priority beats start date and id', () => {
      const candidates = [candidate({ id: 1, priority: 2, startDate: JAN_1 }), candidate({ id: 9, priority: 1, startDate: JAN_3 })];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 9);
    });

    it('on equal priority, picks the earliest start date', () => {
      const candidates = [
        candidate({ id: 1, priority: 2, startDate: JAN_3 }),
        candidate({ id: 2, priority: 2, startDate: JAN_2 }),
        candidate({ id: 3, priority: 2, startDate: JAN_2 + 1000 }),
      ];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 2);
    });

    it('on equal priority and start date, picks the lowest id', () => {
      const candidates = [
        candidate({ id: 12, priority: 2, startDate: JAN_2 }),
        candidate({ id: 4, priority: 2, startDate: JAN_2 }),
        candidate({ id: 30, priority: 2, startDate: JAN_2 }),
      ];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 4);
    });

    it('does not prefer the newest version: ranking is priority, start date, id', () => {
      const candidates = [candidate({ id: 1, priority: 1, version: '1.1.0' }), candidate({ id: 2, priority: 2, version: '9.0.0' })];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 1);
    });

    it('ranks a qualifying downgrade with the upgrades', () => {
      const candidates = [
        candidate({ id: 1, priority: 2, version: '2.0.0' }),
        candidate({ id: 2, priority: 1, version: '0.9.0', downgrade: true }),
      ];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 2);
    });
  });

  describe('device state and wave (docs/decisions.md §10)', () => {
    it('offers while pending, offered or downloading', () => {
      for (const state of ['pending', 'offered', 'downloading'] as const) assert.equal(chosenId([candidate({ id: 1, state })], '1.0.0'), 1);
    });

    it('never after a success report, a failure (until retried) or a confirmation', () => {
      for (const state of ['installed', 'confirmed', 'failed', 'fell_back'] as const) {
        assert.equal(chosenId([candidate({ id: 1, state })], '1.0.0'), null, state);
      }
    });

    it('passes over a rollout whose wave for the device has not started, for the next one', () => {
      const candidates = [candidate({ id: 1, priority: 1, wave: 2, currentWave: 1, waveCount: 3 }), candidate({ id: 2, priority: 2 })];
      for (const order of permutations(candidates)) assert.equal(chosenId(order, '1.0.0'), 2);
    });

    it('puts a device without a state (joined later) in the last wave', () => {
      const joined = { state: null, wave: null, waveCount: 3 } as const;
      assert.equal(chosenId([candidate({ id: 1, ...joined, currentWave: 2 })], '1.0.0'), null);
      assert.equal(chosenId([candidate({ id: 1, ...joined, currentWave: 3 })], '1.0.0'), 1);
    });
  });
});
