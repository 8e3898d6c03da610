import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noDevices, type StateCounts } from './device-states.js';
import { parseRollback, rollbackFiring, rollbackReason, rollbackStates, type RollbackPolicy } from './rollback.js';

/** Counts of a rollout whose targets are exactly the devices given. */
function devices(states: Partial<Omit<StateCounts, 'targeted'>>): StateCounts {
  const counts = { ...noDevices(), ...states };
  counts.targeted = Object.values(states).reduce((n, v) => n + (v ?? 0), 0);
  return counts;
}

const policy = (overrides: Partial<RollbackPolicy> = {}): RollbackPolicy => ({
  firmwareId: 7,
  failedCount: null,
  failedPercentage: 10,
  scope: 'failed',
  ...overrides,
});

describe(rollbackFiring.name, () => {
  it('fires once failed, fell back and timed out together reach the share of the targets', () => {
    assert.equal(rollbackFiring(policy(), devices({ failed: 1, confirmed: 9, pending: 1 })), null, '1 of 11 is 9.1%');
    assert.deepEqual(rollbackFiring(policy(), devices({ failed: 1, confirmed: 8, pending: 1 })), {
      failures: 1,
      targeted: 10,
      percentage: 10,
    });
    assert.deepEqual(rollbackFiring(policy(), devices({ fell_back: 1, timed_out: 1, pending: 18 })), {
      failures: 2,
      targeted: 20,
      percentage: 10,
    });
  });

  it('fires on the count alone, or on whichever of count and share is reached first', () => {
    const count = policy({ failedCount: 3, failedPercentage: null });
    assert.equal(rollbackFiring(count, devices({ failed: 2, pending: 2 })), null, '50% but only 2 devices');
    assert.deepEqual(rollbackFiring(count, devices({ failed: 2, timed_out: 1, pending: 997 })), {
      failures: 3,
      targeted: 1000,
      percentage: 0.3,
    });
    const both = policy({ failedCount: 50, failedPercentage: 5 });
    assert.ok(rollbackFiring(both, devices({ failed: 5, pending: 95 })), 'the share first');
    assert.ok(rollbackFiring(both, devices({ failed: 50, pending: 10_000 })), 'the count first');
  });

  it('never fires without a failure', () => {
    assert.equal(rollbackFiring(policy({ failedPercentage: 0.01 }), devices({ confirmed: 10 })), null);
    assert.equal(rollbackFiring(policy(), noDevices()), null);
  });
});

describe(rollbackStates.name, () => {
  it('takes in the devices that failed, fell back or timed out; with scope all also those that took the update', () => {
    assert.deepEqual(rollbackStates('failed'), ['failed', 'fell_back', 'timed_out']);
    assert.deepEqual(rollbackStates('all'), ['failed', 'fell_back', 'timed_out', 'installed', 'confirmed']);
  });
});

describe(rollbackReason.name, () => {
  it('names the firmware, the triggers and the numbers', () => {
    assert.equal(
      rollbackReason(policy({ failedCount: 3 }), { failures: 1, targeted: 10, percentage: 10 }),
      'rollback to firmware 7 (10% or 3 devices): 1 of 10 targeted devices failed, fell back or timed out (10%)',
    );
    assert.match(
      rollbackReason(policy({ failedCount: 1, failedPercentage: null }), { failures: 1, targeted: 2, percentage: 50 }),
      /^rollback to firmware 7 \(1 device\):/,
    );
  });
});

describe(parseRollback.name, () => {
  it('reads the API form, scope failed unless told', () => {
    assert.deepEqual(parseRollback({ firmware_id: 7, failed_percentage: 5 }), { policy: policy({ failedPercentage: 5 }) });
    assert.deepEqual(parseRollback({ firmware_id: 7, failed_count: 2, failed_percentage: null, scope: 'all' }), {
      policy: policy({ failedCount: 2, failedPercentage: null, scope: 'all' }),
    });
  });

  it('names the field that is wrong', () => {
    const field = (input: unknown) => {
      const read = parseRollback(input);
      return 'error' in read ? read.error.field : null;
    };
    assert.equal(field('5%'), 'rollback');
    assert.equal(field({ failed_percentage: 5 }), 'rollback.firmware_id');
    assert.equal(field({ firmware_id: 7 }), 'rollback', 'no trigger');
    assert.equal(field({ firmware_id: 7, failed_count: 0 }), 'rollback.failed_count');
    assert.equal(field({ firmware_id: 7, failed_percentage: 101 }), 'rollback.failed_percentage');
    assert.equal(field({ firmware_id: 7, failed_count: 1, scope: 'everyone' }), 'rollback.scope');
  });
});
