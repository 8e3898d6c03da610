/**
 * What a device that reports on each update it is given (an "action", as hawkBit's DDI names it)
 * is asked to do when it polls (docs/decisions.md §12). Such a device says when it starts
 * installing, and closes the action itself with success or failure once it booted the new image;
 * it never reports the version it runs. Pure: the DDI adapter asks
 * `DeviceRolloutService.pollAction`, which decides with these.
 */
import { SETTLED_STATES, type DeviceState } from './device-states.js';
import type { RolloutStatus } from './lifecycle.js';
import { chooseNextRollout, type RolloutCandidate } from './next-rollout.js';

/** A rollout as the action rule reads it for one device: a next-rollout candidate with the rollout's status. */
export interface ActionRollout extends RolloutCandidate {
  status: RolloutStatus;
}

/** What the device is asked to do now. */
export type DeviceAction =
  /** Stop what it is doing for this rollout and acknowledge: the rollout was paused or cancelled. */
  | { kind: 'cancel'; rollout: ActionRollout }
  /** Take (or keep taking) this rollout. */
  | { kind: 'deploy'; rollout: ActionRollout };

/**
 * States in which a device has started on a rollout without installing it yet: a paused or
 * cancelled rollout asks it to stop (DDI `cancelAction`), and its acknowledgement sends it back
 * to `pending` (offered again when the rollout resumes).
 */
export const WITHDRAWN_FROM: readonly DeviceState[] = ['offered', 'downloading'];

/**
 * States from which a device that reports it is installing (DDI `proceeding`) becomes
 * `installed`: it fetched the firmware. Before that, such a report changes nothing (SWUpdate
 * sends one before it downloads).
 */
export const INSTALLING_FROM: readonly DeviceState[] = ['downloading'];

/**
 * The action to give the device, in this order:
 * 1. a cancellation, when a paused or cancelled rollout has the device `offered` or
 *    `downloading` (lowest rollout id first): a cancellation takes priority over any deployment;
 * 2. the rollout the device is `installed` in, whatever its status: the device keeps being
 *    offered it across its reboot until it closes the action (success or failure);
 * 3. the rollout {@link chooseNextRollout} chooses among the active ones (docs/decisions.md §8).
 * @param rollouts the rollouts the database filters passed for the device, with its state in each.
 * @param currentVersion the version the device runs (`''` when it never reported one).
 * @returns the action, or `null` when there is nothing to do.
 */
export function chooseAction(rollouts: readonly ActionRollout[], currentVersion: string): DeviceAction | null {
  const byId = [...rollouts].sort((a, b) => a.id - b.id);
  const withdrawn = byId.find((r) => r.status !== 'active' && r.state !== null && WITHDRAWN_FROM.includes(r.state));
  if (withdrawn) return { kind: 'cancel', rollout: withdrawn };
  const installed = byId.find((r) => r.state === 'installed');
  if (installed) return { kind: 'deploy', rollout: installed };
  const chosen = chooseNextRollout(
    byId.filter((r) => r.status === 'active'),
    currentVersion,
  ) as ActionRollout | null;
  return chosen ? { kind: 'deploy', rollout: chosen } : null;
}

/**
 * Whether a device that reports the progress of a deployment (a Mender client's status reports,
 * docs/decisions.md §13) is told to stop it: its rollout was paused or cancelled before the
 * device installed it, that is while it has no state there, is `pending`, or is `offered` or
 * `downloading` ({@link WITHDRAWN_FROM}: where a DDI device gets a cancellation). A device already
 * `installed` goes on to its commit, as a DDI device keeps its installed action; a settled one
 * (confirmed, failed, fell back) has nothing left to stop.
 */
export function isAborted(rolloutStatus: RolloutStatus, state: DeviceState | null): boolean {
  return rolloutStatus !== 'active' && (state === null || state === 'pending' || WITHDRAWN_FROM.includes(state));
}

/**
 * Whether the device may report on the action of `state` in a rollout: until it is settled
 * (confirmed, failed or fell back) the action is open; a report on a closed action is refused
 * (DDI answers 410 Gone, as hawkBit does).
 */
export function isOpenAction(state: DeviceState | null): boolean {
  return state === null || !SETTLED_STATES.includes(state);
}
