import { STATE_LABELS } from '#src/operator/console/rollout-progress';
import type { DeviceState, RolloutStatus, WaveStatus } from '#web/api/types';

/** A rollout's lifecycle state as a coloured badge with its name in words. */
export function StatusBadge({ status }: { status: RolloutStatus }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}

/** A wave's progress as a badge: waiting, running, passed. */
export function WaveBadge({ status }: { status: WaveStatus }) {
  return <span className={`badge wave-${status}`}>{status}</span>;
}

/** A device's state in a rollout as a badge with its name in words. */
export function StateBadge({ state }: { state: DeviceState }) {
  return <span className={`badge state-${state}`}>{STATE_LABELS[state]}</span>;
}
