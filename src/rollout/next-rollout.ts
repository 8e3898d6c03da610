import { compareVersions } from '#src/common/version-order.js';

/**
 * A rollout that passed the database filters of CONTRACT.md §8 for one device: the device's
 * tenant, `active`, started, targeting a group of the device, no success reported by the device,
 * firmware for the device's type.
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
}

/**
 * Chooses the rollout to offer (CONTRACT.md §8): only an upgrade (target version orders after
 * `currentVersion`) unless the rollout is marked as a downgrade, and never the version the device
 * already runs; then the lowest priority number, the earliest start date, the lowest id.
 * @returns the chosen candidate, or `null` when none qualifies.
 */
export function chooseNextRollout(candidates: readonly RolloutCandidate[], currentVersion: string): RolloutCandidate | null {
  let best: RolloutCandidate | null = null;
  for (const candidate of candidates) {
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
