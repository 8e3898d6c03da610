import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEVICE_STATES } from './device-states.js';
import { isAborted } from './device-actions.js';

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
