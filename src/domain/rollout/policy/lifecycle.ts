/** Lifecycle states of a rollout (docs/decisions.md §10). */
export const ROLLOUT_STATUSES = ['draft', 'active', 'paused', 'finished', 'cancelled'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** How a rollout's next wave starts: by itself once the current one passed (`auto`), or on an operator's approval (`manual`). */
export const ROLLOUT_APPROVALS = ['auto', 'manual'] as const;
export type RolloutApproval = (typeof ROLLOUT_APPROVALS)[number];

/**
 * How hawkBit DDI devices are told to take a rollout (docs/decisions.md §12, hawkBit's action
 * types): `forced` (install at once), `soft` (the device may postpone: DDI `attempt`),
 * `download-only` (download, do not install: DDI update `skip`).
 */
export const DDI_ACTION_TYPES = ['forced', 'soft', 'download-only'] as const;
export type DdiActionType = (typeof DDI_ACTION_TYPES)[number];

/** Operator actions on a rollout and the state each leads to. */
export const ROLLOUT_ACTIONS = {
  start: { from: ['draft'], to: 'active' },
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  cancel: { from: ['draft', 'active', 'paused'], to: 'cancelled' },
  finish: { from: ['active', 'paused'], to: 'finished' },
  /** A retry of a finished rollout's failed devices makes it run again. */
  reopen: { from: ['finished'], to: 'active' },
} as const satisfies Record<string, { from: readonly RolloutStatus[]; to: RolloutStatus }>;

export type RolloutAction = keyof typeof ROLLOUT_ACTIONS;

/**
 * The state an action leads to from `status`, or `null` when the transition is not allowed.
 * `draft` → `active` ⇄ `paused` → `finished` (→ `active` again on a retry); `cancelled` from any
 * unfinished state.
 */
export function transition(status: RolloutStatus, action: RolloutAction): RolloutStatus | null {
  const rule = ROLLOUT_ACTIONS[action];
  return (rule.from as readonly RolloutStatus[]).includes(status) ? rule.to : null;
}
