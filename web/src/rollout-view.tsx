import type { Rollout, RolloutStatus } from './api/types';
import type { Segment } from './components/progress';

/**
 * The parts of a rollout's progress bar, devices done first. The operator API counts devices
 * that reported success (`updated`) and the rest (`pending`); a breakdown per device state adds
 * its states here, in the order they are reached.
 */
export function progressSegments(rollout: Rollout): Segment[] {
  return [
    { key: 'updated', label: 'updated', count: rollout.updated },
    { key: 'pending', label: 'pending', count: rollout.pending },
  ];
}

/** An operator action on a rollout: `POST tenants/:tenant/rollouts/:id/<action>`. */
export interface RolloutAction {
  action: string;
  label: string;
  /** The states it is offered in. */
  from: readonly RolloutStatus[];
  /** Asked again in a dialog (it cannot be undone). */
  confirm?: string;
}

/** The actions the operator API offers, in the order the console shows them. */
export const ROLLOUT_ACTIONS: readonly RolloutAction[] = [
  { action: 'start', label: 'Start', from: ['draft'] },
  { action: 'pause', label: 'Pause', from: ['active'] },
  { action: 'resume', label: 'Resume', from: ['paused'] },
  {
    action: 'cancel',
    label: 'Cancel rollout',
    from: ['draft', 'active', 'paused'],
    confirm: 'Devices will no longer be offered this rollout. A cancelled rollout cannot be started again.',
  },
];

/** Whether the rollout may still change by itself (devices report): its views refresh while it may. */
export const isLive = (status: RolloutStatus): boolean => status === 'active' || status === 'paused' || status === 'draft';
