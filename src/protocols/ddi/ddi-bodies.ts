import { isAttributes, MAX_ATTRIBUTES } from '#src/domain/device/device.service.js';

/**
 * Reading what DDI clients send (docs/decisions.md §12): what hawkBit requires, nothing more, since
 * real clients send numeric ids, times without a zone and progress whose `cnt` exceeds `of`. The
 * JSON itself is read strictly by the body parser (SWUpdate's raw line feeds inside strings are
 * repaired first): a body it refuses never gets here.
 */

/** `status.execution` values (hawkBit `DdiStatus.ExecutionStatus`). */
export const DDI_EXECUTIONS = ['closed', 'proceeding', 'canceled', 'scheduled', 'rejected', 'resumed', 'downloaded', 'download'] as const;
export type DdiExecution = (typeof DDI_EXECUTIONS)[number];

/** `status.result.finished` values (hawkBit `DdiResult.FinalResult`). */
export const DDI_FINISHED = ['success', 'failure', 'none'] as const;
export type DdiFinished = (typeof DDI_FINISHED)[number];

/** A feedback as the component uses it. */
export interface DdiFeedback {
  execution: DdiExecution;
  finished: DdiFinished;
  /** `status.details`, strings only (`[]` when absent). */
  details: string[];
}

/** 400 texts of a feedback body hawkBit would refuse too (its `@NotNull` fields). */
export const FeedbackMessages = {
  status: 'status must be an object with execution and result',
  execution: `status.execution must be one of ${DDI_EXECUTIONS.join(', ')}`,
  finished: `status.result.finished must be one of ${DDI_FINISHED.join(', ')}`,
  details: 'status.details must be an array of strings',
} as const;

/** 400 texts of a configData body. */
export const ConfigDataMessages = {
  data: `data must be an object of 1 to ${MAX_ATTRIBUTES} attributes: keys of 1 to 128 characters, string values of at most 128`,
  mode: 'mode must be one of merge, replace, remove',
} as const;

/**
 * A feedback body as the JSON parser handed it.
 * @returns the feedback, or the 400 text of what is missing or wrong.
 */
export function readFeedback(body: unknown): DdiFeedback | { error: string } {
  const status = objectOf(objectOf(body)?.['status']);
  const result = objectOf(status?.['result']);
  if (!status || !result) return { error: FeedbackMessages.status };
  const execution = status['execution'];
  if (!isOneOf(execution, DDI_EXECUTIONS)) return { error: FeedbackMessages.execution };
  const finished = result['finished'];
  if (!isOneOf(finished, DDI_FINISHED)) return { error: FeedbackMessages.finished };
  const details = status['details'];
  if (details !== undefined && details !== null && !(Array.isArray(details) && details.every((d) => typeof d === 'string'))) {
    return { error: FeedbackMessages.details };
  }
  return { execution, finished, details: details ?? [] };
}

/** A configData body as the component uses it. */
export interface DdiConfigDataBody {
  data: Record<string, string>;
  mode: 'merge' | 'replace' | 'remove';
}

/**
 * A configData body: `data` (1 to 100 string attributes, keys of 1 to 128 characters, values of
 * at most 128: hawkBit's limits) and an optional `mode` (default `merge`; clients may send none;
 * `null` is not an absent mode).
 * @returns the body, or the 400 text of what is wrong.
 */
export function readConfigData(body: unknown): DdiConfigDataBody | { error: string } {
  const object = objectOf(body);
  const data = objectOf(object?.['data']);
  // The one rule of what a device may keep as attributes (docs/decisions.md §11), and at least one.
  if (!data || Object.keys(data).length === 0 || !isAttributes(data)) return { error: ConfigDataMessages.data };
  const mode = object !== undefined && 'mode' in object ? object['mode'] : 'merge';
  if (mode !== 'merge' && mode !== 'replace' && mode !== 'remove') return { error: ConfigDataMessages.mode };
  return { data: data, mode };
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}
