import { decide, type Decision, type OfferWhen } from './decision.js';
import type { DeviceState } from './device-states.js';
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
  /** Which targets it offers its firmware to (policy/decision.ts). */
  offerWhen: OfferWhen;
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
 * The decision ({@link decide}) for a candidate as the poll reads it: active, started and a target
 * (the database filters), with the device running `currentVersion`. Maintenance windows and the
 * ramp are left to the caller, which applies them to the chosen rollout only.
 */
export function candidateDecision(candidate: RolloutCandidate, currentVersion: string): Decision {
  return decide(
    { version: currentVersion, state: candidate.state, wave: candidate.wave },
    { ...candidate, status: 'active', windows: undefined, rampSpent: undefined, startDate: undefined },
    0,
  );
}

/**
 * Chooses the rollout to offer (docs/decisions.md §8): among the candidates whose decision
 * ({@link candidateDecision}) is `offer` (the device's state and wave allow it; its version is
 * offered under the rollout's `offer_when`, never the version it already runs), the lowest priority
 * number, then the earliest start date, then the lowest id.
 * @returns the chosen candidate, or `null` when none qualifies.
 */
export function chooseNextRollout(candidates: readonly RolloutCandidate[], currentVersion: string): RolloutCandidate | null {
  let best: RolloutCandidate | null = null;
  for (const candidate of candidates) {
    if (candidateDecision(candidate, currentVersion).kind !== 'offer') continue;
    if (!best || precedes(candidate, best)) best = candidate;
  }
  return best;
}

function precedes(a: RolloutCandidate, b: RolloutCandidate): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  if (a.startDate !== b.startDate) return a.startDate < b.startDate;
  return a.id < b.id;
}
