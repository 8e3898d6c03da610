import type { StateCounts } from './device-states.js';
import { percent } from './waves.js';

/**
 * Abort criteria of a rollout (docs/decisions.md §10.2), as AWS IoT Jobs' `abortConfig`: each
 * names a kind of failure, a share of the finished devices and a least number of finished devices;
 * once both are reached, the rollout pauses or cancels itself. Pure: the settle step reads the
 * kept counts and asks {@link firedCriterion} through `nextStep`.
 */

/** The kinds of failure a criterion counts: one state, or `all` (failed, fell back and timed out). */
export const ABORT_FAILURES = ['failed', 'fell_back', 'timed_out', 'all'] as const;
export type AbortFailure = (typeof ABORT_FAILURES)[number];

/** What a criterion that fired does to the rollout. */
export const ABORT_ACTIONS = ['pause', 'cancel'] as const;
export type AbortAction = (typeof ABORT_ACTIONS)[number];

/** Most criteria a rollout may carry. */
export const MAX_ABORT_CRITERIA = 10;

/** Largest `min_finished`. */
export const MAX_MIN_FINISHED = 1_000_000;

/** One abort criterion, as stored and as the policy reads it. */
export interface AbortCriterion {
  failure: AbortFailure;
  /** Share of the finished devices, percent, above 0 and at most 100. */
  thresholdPercentage: number;
  /** Least number of finished devices (≥ 1) before the criterion is judged. */
  minFinished: number;
  action: AbortAction;
}

/** A criterion that fired, with the numbers that fired it (recorded on the ledger). */
export interface AbortFiring {
  criterion: AbortCriterion;
  /** Finished devices: confirmed, failed, fell back and timed out, over every wave. */
  finished: number;
  /** Finished devices of the criterion's kind of failure. */
  failures: number;
  /** `failures / finished` in percent, rounded to one decimal. */
  percentage: number;
}

/** What is wrong with the criteria an operator gave: `field` is the API field the 400 names. */
export interface AbortError {
  field: string;
  message: string;
}

/** Devices that finished their attempt: confirmed, failed, fell back or timed out. */
export function finishedOf(counts: StateCounts): number {
  return counts.confirmed + counts.failed + counts.fell_back + counts.timed_out;
}

/** Finished devices of one kind of failure. */
export function failuresOf(counts: StateCounts, failure: AbortFailure): number {
  return failure === 'all' ? counts.failed + counts.fell_back + counts.timed_out : counts[failure];
}

/**
 * The first criterion (in the rollout's order) that fires on `counts` (every started wave added
 * up): at least `minFinished` devices finished and the share of the criterion's failures among them
 * reached `thresholdPercentage`; `null` when none does.
 */
export function firedCriterion(criteria: readonly AbortCriterion[], counts: StateCounts): AbortFiring | null {
  const finished = finishedOf(counts);
  for (const criterion of criteria) {
    if (finished < criterion.minFinished || finished === 0) continue;
    const failures = failuresOf(counts, criterion.failure);
    if ((failures / finished) * 100 >= criterion.thresholdPercentage - 1e-9) {
      return { criterion, finished, failures, percentage: Math.round((failures / finished) * 1000) / 10 };
    }
  }
  return null;
}

const FAILURE_WORDS: Record<AbortFailure, string> = {
  failed: 'failed',
  fell_back: 'fell back',
  timed_out: 'timed out',
  all: 'failed, fell back or timed out',
};

/**
 * The reason an abort leaves on the rollout, e.g. `abort criterion timed_out 50% (min 4 finished,
 * pause): 3 of 4 finished devices timed out (75%)`.
 */
export function abortReason(firing: AbortFiring): string {
  const { criterion: c, finished, failures } = firing;
  return (
    `abort criterion ${c.failure} ${c.thresholdPercentage}% (min ${c.minFinished} finished, ${c.action}): ` +
    `${failures} of ${finished} finished devices ${FAILURE_WORDS[c.failure]} (${percent(failures / finished)})`
  );
}

/** A criterion in the operator API's words. */
export function criterionWire(c: AbortCriterion): {
  failure: AbortFailure;
  threshold_percentage: number;
  min_finished: number;
  action: AbortAction;
} {
  return { failure: c.failure, threshold_percentage: c.thresholdPercentage, min_finished: c.minFinished, action: c.action };
}

/**
 * Reads the abort criteria of the operator API: a list of at most {@link MAX_ABORT_CRITERIA}
 * `{failure, threshold_percentage (0–100], min_finished (≥ 1), action}`.
 * @returns the criteria, or what is wrong with which field (`abort_criteria[1].min_finished`…).
 */
export function parseAbortCriteria(input: unknown): { criteria: AbortCriterion[] } | { error: AbortError } {
  const fail = (field: string, message: string) => ({
    error: { field: `abort_criteria${field}`, message: `abort_criteria${field} ${message}` },
  });
  if (!Array.isArray(input) || input.length > MAX_ABORT_CRITERIA) {
    return fail('', `must be a list of at most ${MAX_ABORT_CRITERIA} criteria {failure, threshold_percentage, min_finished, action}`);
  }
  const criteria: AbortCriterion[] = [];
  for (const [index, item] of input.entries()) {
    const at = `[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      return fail(at, 'must be an object {failure, threshold_percentage, min_finished, action}');
    }
    const { failure, threshold_percentage: threshold, min_finished: min, action } = item as Record<string, unknown>;
    if (typeof failure !== 'string' || !(ABORT_FAILURES as readonly string[]).includes(failure)) {
      return fail(`${at}.failure`, `must be one of ${ABORT_FAILURES.join(', ')}`);
    }
    if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold <= 0 || threshold > 100) {
      return fail(`${at}.threshold_percentage`, 'must be a percentage above 0 and at most 100');
    }
    if (typeof min !== 'number' || !Number.isInteger(min) || min < 1 || min > MAX_MIN_FINISHED) {
      return fail(`${at}.min_finished`, `must be a whole number from 1 to ${MAX_MIN_FINISHED}`);
    }
    if (typeof action !== 'string' || !(ABORT_ACTIONS as readonly string[]).includes(action)) {
      return fail(`${at}.action`, `must be one of ${ABORT_ACTIONS.join(', ')}`);
    }
    criteria.push({ failure: failure as AbortFailure, thresholdPercentage: threshold, minFinished: min, action: action as AbortAction });
  }
  return { criteria };
}

/** The criteria stored with a rollout (JSON text of {@link AbortCriterion}s; `[]`: none), remembered per text. */
const storedCriteria = new Map<string, AbortCriterion[]>();

/** Reads a rollout's stored abort criteria. */
export function storedAbortCriteriaOf(text: string | null | undefined): readonly AbortCriterion[] {
  if (!text || text === '[]') return [];
  let criteria = storedCriteria.get(text);
  if (criteria === undefined) {
    criteria = JSON.parse(text) as AbortCriterion[];
    if (storedCriteria.size < 1000) storedCriteria.set(text, criteria);
  }
  return criteria;
}
