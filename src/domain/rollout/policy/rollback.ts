import type { DeviceState, StateCounts } from './device-states.js';
import { percent } from './waves.js';

/**
 * Rollback policy of a rollout (docs/decisions.md §10.4), as Azure Device Update's cloud-initiated
 * rollback: when the devices that failed, fell back or timed out reach a count **or** a share of
 * the rollout's targets, the rollout is cancelled and the devices in scope (those that failed,
 * fell back or timed out; or, with scope `all`, every device that took the update) are offered a
 * named rollback firmware, by a rollout of its own linked to the first. Pure: the settle step asks
 * {@link rollbackFiring}.
 */

/** Which devices the rollback rollout takes in. */
export const ROLLBACK_SCOPES = ['failed', 'all'] as const;
export type RollbackScope = (typeof ROLLBACK_SCOPES)[number];

/** Largest `failed_count`. */
export const MAX_ROLLBACK_COUNT = 1_000_000;

/** A rollout's rollback policy, as stored and as the policy reads it. */
export interface RollbackPolicy {
  /** The firmware to go back to: one of the tenant's, marked as a rollback target, of the rollout's device type. */
  firmwareId: number;
  /** Fires once this many devices failed, fell back or timed out (≥ 1); `null`: no count trigger. */
  failedCount: number | null;
  /** Fires once that share of the targets (percent, above 0 and at most 100) did; `null`: no share trigger. */
  failedPercentage: number | null;
  scope: RollbackScope;
}

/** The numbers that fired a rollback (recorded on the ledger). */
export interface RollbackFiring {
  /** Devices that failed, fell back or timed out, over every wave. */
  failures: number;
  /** Devices the rollout targets. */
  targeted: number;
  /** `failures / targeted` in percent, rounded to one decimal. */
  percentage: number;
}

/** The states whose devices the rollback rollout takes in, per scope. */
export function rollbackStates(scope: RollbackScope): readonly DeviceState[] {
  return scope === 'failed' ? ['failed', 'fell_back', 'timed_out'] : ['failed', 'fell_back', 'timed_out', 'installed', 'confirmed'];
}

/**
 * Whether the policy fires on `counts` (every wave added up): the failures (failed, fell back,
 * timed out) reached `failedCount`, or their share of the targets reached `failedPercentage`.
 * @returns the numbers, or `null` when it does not fire.
 */
export function rollbackFiring(policy: RollbackPolicy, counts: StateCounts): RollbackFiring | null {
  const failures = counts.failed + counts.fell_back + counts.timed_out;
  if (failures === 0) return null;
  const targeted = counts.targeted;
  const share = targeted > 0 ? (failures / targeted) * 100 : 0;
  const byCount = policy.failedCount !== null && failures >= policy.failedCount;
  const byShare = policy.failedPercentage !== null && targeted > 0 && share >= policy.failedPercentage - 1e-9;
  if (!byCount && !byShare) return null;
  return { failures, targeted, percentage: Math.round(share * 10) / 10 };
}

/**
 * The reason a fired rollback leaves on the cancelled rollout, e.g. `rollback to firmware 7
 * (10% or 3 devices): 1 of 10 targeted devices failed, fell back or timed out (10%)`.
 */
export function rollbackReason(policy: RollbackPolicy, firing: RollbackFiring): string {
  const triggers = [
    policy.failedPercentage !== null ? `${policy.failedPercentage}%` : null,
    policy.failedCount !== null ? `${policy.failedCount} device${policy.failedCount === 1 ? '' : 's'}` : null,
  ].filter((t) => t !== null);
  return (
    `rollback to firmware ${policy.firmwareId} (${triggers.join(' or ')}): ${firing.failures} of ${firing.targeted} targeted devices ` +
    `failed, fell back or timed out (${percent(firing.targeted > 0 ? firing.failures / firing.targeted : 0)})`
  );
}

/** A policy in the operator API's words. */
export function rollbackWire(policy: RollbackPolicy): {
  firmware_id: number;
  failed_count: number | null;
  failed_percentage: number | null;
  scope: RollbackScope;
} {
  return {
    firmware_id: policy.firmwareId,
    failed_count: policy.failedCount,
    failed_percentage: policy.failedPercentage,
    scope: policy.scope,
  };
}

/**
 * Reads the operator API's `rollback`: `{firmware_id, failed_count?, failed_percentage?, scope?}`
 * with at least one of the two triggers; scope `failed` unless told.
 * @returns the policy, or what is wrong with which field (`rollback.failed_percentage`…).
 */
export function parseRollback(input: unknown): { policy: RollbackPolicy } | { error: { field: string; message: string } } {
  const fail = (field: string, message: string) => ({ error: { field: `rollback${field}`, message: `rollback${field} ${message}` } });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail('', 'must be an object {firmware_id, failed_count, failed_percentage, scope}');
  }
  const { firmware_id: firmwareId, failed_count: count, failed_percentage: share, scope } = input as Record<string, unknown>;
  if (typeof firmwareId !== 'number' || !Number.isSafeInteger(firmwareId) || firmwareId < 1) {
    return fail('.firmware_id', 'must be the id of a firmware (a whole number from 1)');
  }
  if (
    count !== undefined &&
    count !== null &&
    (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_ROLLBACK_COUNT)
  ) {
    return fail('.failed_count', `must be a whole number from 1 to ${MAX_ROLLBACK_COUNT}`);
  }
  if (share !== undefined && share !== null && (typeof share !== 'number' || !Number.isFinite(share) || share <= 0 || share > 100)) {
    return fail('.failed_percentage', 'must be a percentage above 0 and at most 100');
  }
  if ((count === undefined || count === null) && (share === undefined || share === null)) {
    return fail('', 'needs a trigger: failed_count, failed_percentage or both');
  }
  if (scope !== undefined && (typeof scope !== 'string' || !(ROLLBACK_SCOPES as readonly string[]).includes(scope))) {
    return fail('.scope', `must be one of ${ROLLBACK_SCOPES.join(', ')}`);
  }
  return {
    policy: {
      firmwareId,
      failedCount: typeof count === 'number' ? count : null,
      failedPercentage: typeof share === 'number' ? share : null,
      scope: (scope as RollbackScope | undefined) ?? 'failed',
    },
  };
}

/** Reads a rollout's stored policy (JSON text of {@link RollbackPolicy}; `null`: none). */
export function storedRollbackOf(text: string | null | undefined): RollbackPolicy | null {
  return text ? (JSON.parse(text) as RollbackPolicy) : null;
}
