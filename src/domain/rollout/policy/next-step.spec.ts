import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noDevices, type StateCounts } from './device-states.js';
import { nextStep, type SettlingCounts, type SettlingRollout } from './next-step.js';

/** Counts of one wave from the states given; `targeted` is their sum. */
function wave(states: Partial<Omit<StateCounts, 'targeted'>>): StateCounts {
  const counts = { ...noDevices(), ...states };
  counts.targeted = Object.values(states).reduce((n, v) => n + (v ?? 0), 0);
  return counts;
}

/** The counts of `waves`, every member of the group registered unless told. */
function counts(waves: StateCounts[], notRegistered = 0): SettlingCounts {
  return { waves, notRegistered };
}

const ACTIVE: SettlingRollout = {
  status: 'active',
  currentWave: 1,
  approval: 'auto',
  awaitingApproval: false,
  successThreshold: 0.9,
  errorThreshold: null,
};

describe(nextStep.name, () => {
  it('does nothing for a rollout that is neither active nor paused', () => {
    for (const status of ['draft', 'finished', 'cancelled'] as const) {
      assert.deepEqual(nextStep({ ...ACTIVE, status }, counts([wave({ confirmed: 10 })])), { kind: 'none' }, status);
    }
  });

  it('finishes once every target is confirmed, failed or fell back; also when paused', () => {
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ confirmed: 8, failed: 1, fell_back: 1 })])), { kind: 'finish' });
    assert.deepEqual(nextStep({ ...ACTIVE, status: 'paused' }, counts([wave({ confirmed: 1 })])), { kind: 'finish' });
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ confirmed: 9, installed: 1 })])), { kind: 'none' });
  });

  it('does not finish while members of its group are not registered: they may still become targets', () => {
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ confirmed: 10 })], 1)), { kind: 'none' });
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ confirmed: 10 })], 0)), { kind: 'finish' });
  });

  it('does not finish a rollout without targets (devices that become targets later join its last wave)', () => {
    assert.deepEqual(nextStep(ACTIVE, counts([wave({})])), { kind: 'none' });
  });

  it('finishes across waves only when every wave is settled', () => {
    const rollout = { ...ACTIVE, currentWave: 2 };
    assert.deepEqual(nextStep(rollout, counts([wave({ confirmed: 5 }), wave({ confirmed: 5 })])), { kind: 'finish' });
    assert.deepEqual(nextStep(rollout, counts([wave({ confirmed: 5 }), wave({ confirmed: 4, pending: 1 })])), { kind: 'none' });
  });

  it('pauses when a started wave is over the error threshold, naming the wave', () => {
    const rollout = { ...ACTIVE, errorThreshold: 0.2, currentWave: 2 };
    const step = nextStep(rollout, counts([wave({ confirmed: 10 }), wave({ failed: 3, offered: 7 }), wave({ pending: 10 })]));
    assert.deepEqual(step, {
      kind: 'pause',
      wave: 2,
      reason: 'wave 2: 3 of 10 devices failed or fell back (30%), over the error threshold 20%',
    });
  });

  it('judges only the changed wave when told which', () => {
    const rollout = { ...ACTIVE, errorThreshold: 0.2, currentWave: 2 };
    const waves = counts([wave({ failed: 5, confirmed: 5 }), wave({ offered: 10 }), wave({ pending: 10 })]);
    assert.equal(nextStep(rollout, waves, 2).kind, 'none');
    assert.equal(nextStep(rollout, waves, 1).kind, 'pause');
  });

  it('never pauses a paused rollout again, nor one without an error threshold', () => {
    assert.deepEqual(nextStep({ ...ACTIVE, status: 'paused', errorThreshold: 0.1 }, counts([wave({ failed: 5, offered: 5 })])), {
      kind: 'none',
    });
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ failed: 5, offered: 5 }), wave({ pending: 1 })])), { kind: 'none' });
  });

  it('starts the next wave once the current one reached the success threshold (auto)', () => {
    const waves = counts([wave({ confirmed: 9, offered: 1 }), wave({ pending: 10 })]);
    assert.deepEqual(nextStep(ACTIVE, waves), { kind: 'start_wave', wave: 2 });
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ confirmed: 8, offered: 2 }), wave({ pending: 10 })])), { kind: 'none' });
  });

  it('waits for an operator when approval is manual, once', () => {
    const waves = counts([wave({ confirmed: 10 }), wave({ pending: 10 })]);
    assert.deepEqual(nextStep({ ...ACTIVE, approval: 'manual' }, waves), { kind: 'await_approval', wave: 1 });
    assert.deepEqual(nextStep({ ...ACTIVE, approval: 'manual', awaitingApproval: true }, waves), { kind: 'none' });
  });

  it('starts no wave beyond the last', () => {
    assert.deepEqual(nextStep({ ...ACTIVE, currentWave: 2 }, counts([wave({ confirmed: 10 }), wave({ confirmed: 9, offered: 1 })])), {
      kind: 'none',
    });
  });

  it('finishes when every target is confirmed, failed, fell back or timed out', () => {
    assert.deepEqual(nextStep(ACTIVE, counts([wave({ confirmed: 8, timed_out: 2 })])), { kind: 'finish' });
  });

  it('an abort criterion that fires pauses or cancels the rollout, with its numbers, before the error threshold', () => {
    const criterion = { failure: 'timed_out', thresholdPercentage: 50, minFinished: 4, action: 'pause' } as const;
    const rollout = { ...ACTIVE, errorThreshold: 0.1, currentWave: 2, abortCriteria: [criterion] };
    const waves = counts([wave({ timed_out: 2, confirmed: 1, failed: 1, offered: 6 }), wave({ pending: 10 })]);
    assert.deepEqual(nextStep(rollout, waves), {
      kind: 'abort',
      action: 'pause',
      reason: 'abort criterion timed_out 50% (min 4 finished, pause): 2 of 4 finished devices timed out (50%)',
      firing: { criterion, finished: 4, failures: 2, percentage: 50 },
    });
    const cancel = { ...rollout, abortCriteria: [{ ...criterion, action: 'cancel' as const }] };
    assert.equal(nextStep(cancel, waves).kind, 'abort');
    // Below min_finished the criterion waits; the error threshold still applies.
    const fewer = counts([wave({ timed_out: 2, confirmed: 1, offered: 7 }), wave({ pending: 10 })]);
    assert.deepEqual(nextStep(rollout, fewer).kind, 'none');
    assert.equal(nextStep({ ...rollout, errorThreshold: null }, waves).kind, 'abort');
  });

  it('judges abort criteria neither on a paused rollout nor when everything settled (it finishes)', () => {
    const abortCriteria = [{ failure: 'all', thresholdPercentage: 10, minFinished: 1, action: 'cancel' }] as const;
    assert.deepEqual(nextStep({ ...ACTIVE, status: 'paused', abortCriteria }, counts([wave({ failed: 5, offered: 5 })])), {
      kind: 'none',
    });
    assert.deepEqual(nextStep({ ...ACTIVE, abortCriteria }, counts([wave({ failed: 5, confirmed: 5 })])), { kind: 'finish' });
  });
});
