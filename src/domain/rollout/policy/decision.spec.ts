import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decide, versionSkip, type DecisionDevice, type DecisionRollout } from './decision.js';
import { SETTLED_STATES } from './device-states.js';

const NOW = Date.UTC(2026, 11, 7, 12, 0, 30);

function device(overrides: Partial<DecisionDevice> = {}): DecisionDevice {
  return { version: '1.0.0', deviceType: 'ESP32', state: 'pending', wave: 1, ...overrides };
}

function rollout(overrides: Partial<DecisionRollout> = {}): DecisionRollout {
  return {
    status: 'active',
    version: '2.0.0',
    deviceType: 'ESP32',
    downgrade: false,
    offerWhen: 'newer',
    startDate: NOW - 60_000,
    currentWave: 1,
    waveCount: 1,
    ...overrides,
  };
}

describe(decide.name, () => {
  it('offers a newer version to a pending device of the type whose wave started', () => {
    assert.equal(decide(device(), rollout(), NOW).kind, 'offer');
  });

  it('skips, counted as confirmed, a device that already runs the version', () => {
    const decision = decide(device({ version: '2.0.0' }), rollout(), NOW);
    assert.deepEqual(decision, { kind: 'skip', reason: 'already runs 2.0.0', until: null, settleAs: 'confirmed' });
  });

  it('skips a device on a version that orders after the firmware (anti-rollback), saying how to offer it', () => {
    const decision = decide(device({ version: '9.0.0' }), rollout(), NOW);
    assert.equal(decision.kind, 'skip');
    assert.equal(decision.kind === 'skip' && decision.settleAs, 'skipped');
    assert.match(decision.reason, /anti-rollback: runs 9\.0\.0, which orders after 2\.0\.0/);
    assert.match(decision.reason, /downgrade or offer_when "different"/);
  });

  it('offers a version that orders before the device only to a downgrade', () => {
    assert.equal(decide(device({ version: '9.0.0' }), rollout({ downgrade: true }), NOW).kind, 'offer');
  });

  describe('offer_when "different" (Mender and hawkBit: any target not running it)', () => {
    it('offers an artifact name that orders before the one the device runs', () => {
      const mender = rollout({ version: 'fw-2.0', offerWhen: 'different' });
      assert.equal(decide(device({ version: 'harness-initial-1.0' }), mender, NOW).kind, 'offer');
      assert.equal(decide(device({ version: 'harness-initial-1.0' }), { ...mender, offerWhen: 'newer' }, NOW).kind, 'skip');
    });

    it('still skips, as confirmed, the device running exactly that name', () => {
      const decision = decide(device({ version: 'fw-2.0' }), rollout({ version: 'fw-2.0', offerWhen: 'different' }), NOW);
      assert.equal(decision.kind === 'skip' && decision.settleAs, 'confirmed');
    });
  });

  it('skips a device of another type, naming both', () => {
    const decision = decide(device({ deviceType: 'ESP8266' }), rollout(), NOW);
    assert.equal(decision.kind, 'skip');
    assert.match(decision.reason, /for ESP32, the device is ESP8266/);
  });

  it('answers settled for every settled state, whatever the version', () => {
    for (const state of SETTLED_STATES) {
      const decision = decide(device({ state, version: '9.0.0' }), rollout(), NOW);
      assert.equal(decision.kind, 'settled');
      assert.equal(decision.kind === 'settled' && decision.state, state);
    }
  });

  it('waits for the confirmation of an installed device', () => {
    assert.equal(decide(device({ state: 'installed' }), rollout(), NOW).kind, 'wait');
  });

  it('waits while the rollout is paused or a draft', () => {
    assert.deepEqual(decide(device(), rollout({ status: 'paused' }), NOW), { kind: 'wait', reason: 'the rollout is paused', until: null });
    assert.equal(decide(device({ state: null }), rollout({ status: 'draft' }), NOW).kind, 'wait');
  });

  it('waits until the start date', () => {
    const start = NOW + 3_600_000;
    assert.deepEqual(decide(device(), rollout({ startDate: start }), NOW), {
      kind: 'wait',
      reason: 'the rollout starts later',
      until: start,
    });
  });

  it('waits for its wave, or for the approval that starts it', () => {
    const waves = rollout({ currentWave: 1, waveCount: 3 });
    assert.match(decide(device({ wave: 2 }), waves, NOW).reason, /wave 2 has not started/);
    assert.match(decide(device({ wave: 2 }), { ...waves, awaitingApproval: true }, NOW).reason, /wave 2 awaits an operator's approval/);
    // A device without a state joined late: it belongs to the last wave.
    assert.equal(decide(device({ state: null, wave: null }), waves, NOW).kind, 'wait');
    assert.equal(decide(device({ state: null, wave: null }), { ...waves, currentWave: 3 }, NOW).kind, 'offer');
  });

  it('waits for a closed maintenance window until it opens', () => {
    // Opens every day at 02:00 UTC for an hour; NOW is 12:00.
    const windows = [{ cron: '0 2 * * *', durationSeconds: 3600, timeZone: 'UTC' }];
    const decision = decide(device(), rollout({ windows }), NOW);
    assert.equal(decision.kind, 'wait');
    assert.equal(decision.reason, 'outside the maintenance windows');
    assert.equal(decision.until, Date.UTC(2026, 11, 8, 2, 0, 0));
  });

  it('waits for the next minute when the ramp is spent', () => {
    assert.deepEqual(decide(device(), rollout({ rampSpent: true }), NOW), {
      kind: 'wait',
      reason: "the ramp's offers for this minute are spent",
      until: Date.UTC(2026, 11, 7, 12, 1, 0),
    });
  });

  it('skips before it waits: a device the rollout will never update does not hold it while paused', () => {
    assert.equal(decide(device({ version: '9.0.0' }), rollout({ status: 'paused' }), NOW).kind, 'skip');
  });
});

describe(versionSkip.name, () => {
  it('is what decide answers for the version alone', () => {
    for (const version of ['', '1.0.0', '2.0.0', '2.0', '9.0.0', 'v2.0.0', 'fw-2.0']) {
      for (const offerWhen of ['newer', 'different'] as const) {
        for (const downgrade of [false, true]) {
          const plan = rollout({ offerWhen, downgrade });
          const decision = decide(device({ version }), plan, NOW);
          assert.deepEqual(versionSkip(version, plan), decision.kind === 'skip' ? decision : null, `${version} ${offerWhen} ${downgrade}`);
        }
      }
    }
  });
});
