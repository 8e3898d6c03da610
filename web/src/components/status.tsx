import type { RolloutStatus } from '#web/api/types';

/** A rollout's lifecycle state as a coloured badge with its name in words. */
export function StatusBadge({ status }: { status: RolloutStatus }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
