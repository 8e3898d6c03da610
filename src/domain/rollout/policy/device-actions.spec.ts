import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEVICE_STATES, SETTLED_STATES } from './device-states.js';
import { chooseAction, isAborted, isOpenAction, type ActionRollout } from './device-actions.js';

function rollout(overrides: Partial<ActionRollout> & Pick<ActionRollout, 'id'>): ActionRollout {
  return {
    name: `r${overrides.id}`,
    priority: 1,
    startDate: Date.UTC(2026, 0, 1),
    downgrade: false,
    offerWhen: 'newer',
    firmwareId: 100 + overrides.id,
    version: '2.0.0',
    state: 'pending',
    wave: 1,
    currentWave: 1,
    waveCount: 1,
    status: 'active',
    ...overrides,
  };
}

const kindAndId = (rollouts: ActionRollout[], version = '1.0.0') => {
  const action = chooseAction(rollouts, version);
  return action === null ? null : [action.kind, action.rollout.id];
};

describe(chooseAction.name, () => {
  it('has nothing to do without rollouts', () => {
    assert.equal(chooseAction([], '1.0.0'), null);
  });

  it('cancels an action started in a paused or cancelled rollout before anything else, lowest id first', () => {
    assert.deepEqual(
      kindAndId([
        rollout({ id: 5, priority: 1 }),
        rollout({ id: 4, status: 'paused', state: 'downloading' }),
        rollout({ id: 3, status: 'cancelled', state: 'offered' }),
        rollout({ id: 2, state: 'installed' }),
      ]),
      ['cancel', 3],
    );
  });

  it('never cancels what was not started (pending), what the device installed, or what is settled', () => {
    for (const state of ['pending', 'installed', ...SETTLED_STATES] as const) {
      const action = chooseAction([rollout({ id: 1, status: 'paused', state })], '1.0.0');
      assert.notEqual(action?.kind, 'cancel', state);
    }
  });

  it('keeps offering the rollout the device installed, whatever its status, until the device closes it', () => {
    for (const status of ['active', 'paused', 'cancelled', 'finished'] as const) {
      assert.deepEqual(kindAndId([rollout({ id: 9, priority: 1 }), rollout({ id: 7, priority: 5, state: 'installed', status })]), [
        'deploy',
        7,
      ]);
    }
    assert.deepEqual(
      kindAndId([rollout({ id: 7, state: 'installed', version: '1.0.0' })], '1.0.0'),
      ['deploy', 7],
      'even on the same version',
    );
  });

  it('otherwise chooses among active rollouts as the next-rollout rule does (priority, upgrade only, wave)', () => {
    assert.deepEqual(kindAndId([rollout({ id: 1, priority: 2 }), rollout({ id: 2, priority: 1 })]), ['deploy', 2]);
    assert.equal(kindAndId([rollout({ id: 1, status: 'paused' })]), null, 'a paused rollout is not offered');
    assert.equal(kindAndId([rollout({ id: 1, version: '0.9.0' })]), null, 'no downgrade unless marked');
    assert.equal(kindAndId([rollout({ id: 1, wave: 2, currentWave: 1, waveCount: 2 })]), null, 'its wave has not started');
    assert.deepEqual(kindAndId([rollout({ id: 1 })], ''), ['deploy', 1], 'a device that never reported a version takes any version');
  });
});

describe(isOpenAction.name, () => {
  it('is open until the device is settled', () => {
    for (const state of [null, ...DEVICE_STATES]) {
      assert.equal(isOpenAction(state), state === null || !SETTLED_STATES.includes(state), String(state));
    }
  });
});

describe(isAborted.name, () => {
  it('stops a device only where its rollout is paused or cancelled before it installed', () => {
    const aborted = (['active', 'paused', 'cancelled'] as const).flatMap((status) =>
      [null, ...DEVICE_STATES].filter((state) => isAborted(status, state)).map((state) => `${status}/${state ?? 'none'}`),
    );
    assert.deepEqual(aborted, [
      'paused/none',
      'paused/pending',
      'paused/offered',
      'paused/downloading',
      'cancelled/none',
      'cancelled/pending',
      'cancelled/offered',
      'cancelled/downloading',
    ]);
  });
});
