import { compareVersions } from '#src/platform/common/version-order.js';
import { mayOffer, type DeviceState } from './device-states.js';
import type { RampPlan } from './ramp.js';
import type { MaintenanceWindow } from './windows.js';

/**
 * A rollout that passed the database filters of docs/decisions.md §8 for one device: the device's
 * tenant, `active`, started, targeting a group of the device, firmware for the device's type;
 * with the device's state and wave in it (docs/decisions.md §10).
 */
export interface RolloutCandidate {
  id: number;
  name: string;
  priority: number;
  /** Epoch milliseconds. */
  startDate: number;
  downgrade: boolean;
  firmwareId: number;
  version: string;
  /** The device's state in the rollout; `null` when it has none (it joined the group after the start). */
  state: DeviceState | null;
  /** The device's wave; `null` when it has no state. */
  wave: number | null;
  /** The latest wave the rollout started. */
  currentWave: number;
  /** How many waves the rollout has. */
  waveCount: number;
  /** Its maintenance windows (policy/windows.ts); absent or empty: always open. */
  windows?: readonly MaintenanceWindow[];
  /** Its ramp (policy/ramp.ts); absent or `null`: new offers are not limited. */
  ramp?: RampPlan | null;
}

/**
 * Chooses the rollout to offer (docs/decisions.md §8): only one the device's state and wave allow
 * ({@link mayOffer}: not once it reported success or failed until retried, never once
 * confirmed, not before its wave started); only an upgrade (target version orders after
 * `currentVersion`) unless the rollout is marked as a downgrade, and never the version the device
 * already runs; then the lowest priority number, the earliest start date, the lowest id.
 * @returns the chosen candidate, or `null` when none qualifies.
 */
export function chooseNextRollout(candidates: readonly RolloutCandidate[], currentVersion: string): RolloutCandidate | null {
  let best: RolloutCandidate | null = null;
  for (const candidate of candidates) {
    if (!mayOffer(candidate.state, candidate.wave, candidate.currentWave, candidate.waveCount)) continue;
    const order = compareVersions(candidate.version, currentVersion);
    if (order === 0 || (order < 0 && !candidate.downgrade)) continue;
    if (!best || precedes(candidate, best)) best = candidate;
  }
  return best;
}

function precedes(a: RolloutCandidate, b: RolloutCandidate): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  if (a.startDate !== b.startDate) return a.startDate < b.startDate;
  return a.id < b.id;
}
