import { barSegments, legendSegments } from '#src/operator/console/rollout-progress';
import type { Rollout, RolloutStatus, StateCounts } from './api/types';
import { SegmentedBar } from './components/progress';

/**
 * A progress bar of devices per state (confirmed first, failures at the right end) with a legend
 * in the API's counting order; its value for screen readers is the confirmed devices.
 */
export function StateBar({ counts, label, legend = true }: { counts: StateCounts; label: string; legend?: boolean }) {
  return (
    <SegmentedBar
      segments={barSegments(counts)}
      legendSegments={legendSegments(counts)}
      total={counts.targeted}
      label={label}
      done={counts.confirmed}
      doneLabel="confirmed"
      legend={legend}
    />
  );
}

/** Failed and fell-back devices of a rollout: what "retry" sends back. */
export const retriable = (rollout: Rollout): number => rollout.devices.failed + rollout.devices.fell_back + rollout.devices.timed_out;

/** The wave after the current one, when there is one. */
export function nextWave(rollout: Rollout): number | undefined {
  return rollout.current_wave < rollout.waves.length ? rollout.current_wave + 1 : undefined;
}

/** An operator action on a rollout: `POST tenants/:tenant/rollouts/:id/<action>`. */
export interface RolloutAction {
  action: 'start' | 'pause' | 'resume' | 'cancel' | 'approve' | 'retry';
  /** The button's text. */
  label: (rollout: Rollout) => string;
  /** Whether the rollout's state allows it now. */
  offered: (rollout: Rollout) => boolean;
  /** Asked again in a dialog (it cannot be undone). */
  confirm?: string;
}

const inStatus =
  (...statuses: RolloutStatus[]) =>
  (rollout: Rollout) =>
    statuses.includes(rollout.status);

/** The actions the operator API offers, in the order the console shows them. */
export const ROLLOUT_ACTIONS: readonly RolloutAction[] = [
  { action: 'start', label: () => 'Start', offered: inStatus('draft') },
  {
    action: 'approve',
    label: (r) => `Approve wave ${nextWave(r) ?? 'next'}`,
    offered: (r) => r.awaiting_approval && (r.status === 'active' || r.status === 'paused'),
  },
  { action: 'pause', label: () => 'Pause', offered: inStatus('active') },
  { action: 'resume', label: () => 'Resume', offered: inStatus('paused') },
  {
    action: 'retry',
    label: (r) => `Retry failed devices (${retriable(r)})`,
    offered: (r) => retriable(r) > 0 && r.status !== 'draft' && r.status !== 'cancelled',
  },
  {
    action: 'cancel',
    label: () => 'Cancel rollout',
    offered: inStatus('draft', 'active', 'paused'),
    confirm: 'Devices will no longer be offered this rollout. A cancelled rollout cannot be started again.',
  },
];

/** Whether the rollout may still change by itself (devices report): its views refresh while it may. */
export const isLive = (status: RolloutStatus): boolean => status === 'active' || status === 'paused' || status === 'draft';
