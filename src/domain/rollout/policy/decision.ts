/**
 * The one decision of what a rollout does for one device at one instant (docs/decisions.md §8,
 * §10, §10.5). Pure: every device protocol's poll, the settling of devices a rollout will never
 * update, the counts and the explanation operators read (`device why`, the decisions endpoint,
 * the rollout's device list) all ask {@link decide}, so what a device is told and why cannot
 * drift apart.
 */
import { compareVersions } from '#src/platform/common/version-order.js';
import { SETTLED_STATES, type DeviceState } from './device-states.js';
import type { RolloutStatus } from './lifecycle.js';
import { minuteOf } from './ramp.js';
import { windowAt, type MaintenanceWindow } from './windows.js';

/**
 * Which targets a rollout offers its firmware to (docs/decisions.md §10.5): `newer`, only those
 * whose version orders before the firmware's (anti-rollback, the default); `different`, every
 * target that does not already run the firmware's version (Mender's and hawkBit's rule, for
 * artifact names that do not order as versions).
 */
export const OFFER_WHEN = ['newer', 'different'] as const;
export type OfferWhen = (typeof OFFER_WHEN)[number];

/** The four kinds of {@link Decision}. */
export const DECISION_KINDS = ['offer', 'wait', 'skip', 'settled'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/**
 * What a rollout does for a device now:
 * - `offer`: name the rollout to the device;
 * - `wait`: not now, for `reason`, until `until` (epoch ms) where the wait has a known end;
 * - `skip`: never, for `reason`; the rollout does not wait for the device (it settles as
 *   `settleAs`: `confirmed` when it already runs the version, else `skipped`);
 * - `settled`: the device's attempt is over, in `state`.
 */
export type Decision =
  | { kind: 'offer'; reason: string; until: null }
  | { kind: 'wait'; reason: string; until: number | null }
  | { kind: 'skip'; reason: string; until: null; settleAs: 'confirmed' | 'skipped' }
  | { kind: 'settled'; reason: string; until: null; state: DeviceState };

/** What the decision reads of the device. */
export interface DecisionDevice {
  /** The version it runs (`''` when it never reported one). */
  version: string;
  /** Its device type; absent: known to be the firmware's (a candidate the database read as a target). */
  deviceType?: string;
  /** Its state in the rollout; `null` when it has none (it joined the group after the start, or the rollout is a draft). */
  state: DeviceState | null;
  /** Its wave; `null` when it has no state (a late joiner belongs to the last wave). */
  wave: number | null;
}

/** What the decision reads of the rollout. */
export interface DecisionRollout {
  status: RolloutStatus;
  /** The firmware's version. */
  version: string;
  /** The firmware's device type; absent: known to be the device's. */
  deviceType?: string;
  /** Marked as a downgrade: offered whatever the device's version orders as, but never the same version. */
  downgrade: boolean;
  offerWhen: OfferWhen;
  /** Epoch ms; absent: known to have passed. */
  startDate?: number;
  /** The latest wave started (1-based) and how many there are. */
  currentWave: number;
  waveCount: number;
  /** The current wave passed and waits for an operator's approval. */
  awaitingApproval?: boolean;
  /** Maintenance windows; absent or empty: always open. */
  windows?: readonly MaintenanceWindow[];
  /** Whether the ramp's allowance of new offers is spent for the current minute; absent: not known or no ramp. */
  rampSpent?: boolean;
}

/**
 * Whether the firmware's version is to be offered to a device running `running` under `rollout`'s
 * rule, or why not: `same` (it already runs it), `older` (it runs a version that orders after it,
 * anti-rollback). Under `different` only the same text counts as the same version; otherwise versions
 * that order equal (`1.2` and `1.2.0`) are the same.
 */
export function versionVerdict(
  running: string,
  rollout: Pick<DecisionRollout, 'version' | 'downgrade' | 'offerWhen'>,
): 'offer' | 'same' | 'older' {
  if (rollout.offerWhen === 'different') return running === rollout.version ? 'same' : 'offer';
  const order = compareVersions(rollout.version, running);
  if (order === 0) return 'same';
  return order > 0 || rollout.downgrade ? 'offer' : 'older';
}

/**
 * Decides what `rollout` does for `device` at `now` (epoch ms), in this order:
 * 1. another device type than the firmware's: skip (it is no target);
 * 2. the attempt is over (confirmed, failed, fell back, timed out, skipped): settled;
 * 3. `installed` (success reported): wait for the version that confirms it;
 * 4. already runs the firmware's version: skip, counted as confirmed; runs a version that orders
 *    after it under `offer_when: newer` without a downgrade: skip (anti-rollback);
 * 5. a draft, a paused, finished or cancelled rollout, a start date to come, a wave not started
 *    (awaiting an operator's approval or the current wave), a closed maintenance window, the
 *    ramp's allowance spent this minute: wait, with when it ends where that is known;
 * 6. else offer.
 */
export function decide(device: DecisionDevice, rollout: DecisionRollout, now: number): Decision {
  if (device.deviceType !== undefined && rollout.deviceType !== undefined && device.deviceType !== rollout.deviceType) {
    return skip(`another device type: the firmware is for ${rollout.deviceType}, the device is ${device.deviceType}`, 'skipped');
  }
  const { state } = device;
  if (state !== null && isSettled(state)) return { kind: 'settled', reason: settledReason(state), until: null, state };
  if (state === 'installed') return wait('installed: waiting for the device to report the new version', null);
  const skipped = versionSkip(device.version, rollout);
  if (skipped !== null) return skipped;
  if (rollout.status === 'draft') return wait('the rollout is a draft, not started', null);
  if (rollout.status === 'paused') return wait('the rollout is paused', null);
  if (rollout.status !== 'active') return wait(`the rollout is ${rollout.status}`, null);
  if (rollout.startDate !== undefined && rollout.startDate > now) return wait('the rollout starts later', rollout.startDate);
  const wave = device.wave ?? rollout.waveCount;
  if (wave > rollout.currentWave) {
    return rollout.awaitingApproval && wave === rollout.currentWave + 1
      ? wait(`wave ${wave} awaits an operator's approval`, null)
      : wait(`wave ${wave} has not started (wave ${rollout.currentWave} is running)`, null);
  }
  const window = windowAt(rollout.windows ?? [], now);
  if (!window.open) return wait('outside the maintenance windows', window.nextOpen);
  if (rollout.rampSpent === true) return wait("the ramp's offers for this minute are spent", (minuteOf(now) + 1) * 60_000);
  return { kind: 'offer', reason: offerReason(state), until: null };
}

/**
 * The skip a device running `running` gets from the rollout's version rule ({@link versionVerdict}),
 * or `null` when the version rule offers it: `confirmed` when it already runs the firmware's
 * version, `skipped` for anti-rollback. Also what settles such targets when a rollout starts.
 */
export function versionSkip(
  running: string,
  rollout: Pick<DecisionRollout, 'version' | 'downgrade' | 'offerWhen'>,
): Extract<Decision, { kind: 'skip' }> | null {
  const verdict = versionVerdict(running, rollout);
  if (verdict === 'same') return skip(`already runs ${rollout.version}`, 'confirmed');
  if (verdict === 'older') {
    return skip(
      `anti-rollback: runs ${running}, which orders after ${rollout.version}; plan a downgrade or offer_when "different" to offer it`,
      'skipped',
    );
  }
  return null;
}

/** Settled states, skipped included: the rollout waits for nothing more from the device. */
function isSettled(state: DeviceState): boolean {
  return SETTLED_STATES.includes(state);
}

function skip(reason: string, settleAs: 'confirmed' | 'skipped'): Extract<Decision, { kind: 'skip' }> {
  return { kind: 'skip', reason, until: null, settleAs };
}

function wait(reason: string, until: number | null): Decision {
  return { kind: 'wait', reason, until };
}

function offerReason(state: DeviceState | null): string {
  if (state === 'offered' || state === 'downloading')
    return `offered: the device is ${state === 'offered' ? 'to fetch' : 'fetching'} the firmware`;
  return 'to be offered at its next request';
}

const SETTLED_REASONS: Partial<Record<DeviceState, string>> = {
  confirmed: 'confirmed: runs the new version',
  failed: 'failed: see the device history; a retry offers it again',
  fell_back: 'fell back to its previous version; a retry offers it again',
  timed_out: 'timed out; a retry offers it again',
  skipped: 'skipped: the rollout will not update it',
};

function settledReason(state: DeviceState): string {
  return SETTLED_REASONS[state] ?? state;
}
