/**
 * The operator console's reading of a rollout's progress and of the plan form, as pure functions
 * (no DOM, no React) so unit specs run them under node. The device states and their counting
 * order are the operator API's (docs/decisions.md §10); the console only names and orders them.
 */

import { DEVICE_STATES, type DeviceState, type StateCounts } from '#src/domain/rollout/policy/device-states.js';
import { parseWavePlan } from '#src/domain/rollout/policy/waves.js';
import { MAX_WINDOW_SECONDS, MAX_WINDOWS } from '#src/domain/rollout/policy/window-limits.js';
import { RAMP_LIMITS, type RampCriterion } from '#src/domain/rollout/policy/ramp.js';
import {
  ABORT_ACTIONS,
  ABORT_FAILURES,
  MAX_ABORT_CRITERIA,
  MAX_MIN_FINISHED,
  type AbortAction,
  type AbortFailure,
} from '#src/domain/rollout/policy/abort.js';
import { TIMED_STATES, TIMEOUT_LIMITS, type TimedState } from '#src/domain/rollout/policy/timeouts.js';

export { DEVICE_STATES, type DeviceState, type StateCounts };
export { MAX_WAVES } from '#src/domain/rollout/policy/waves.js';
export {
  ABORT_ACTIONS,
  ABORT_FAILURES,
  MAX_ABORT_CRITERIA,
  MAX_WINDOWS,
  TIMED_STATES,
  type AbortAction,
  type AbortFailure,
  type RampCriterion,
  type TimedState,
};

/** Each state in words, for legends and tables. */
export const STATE_LABELS: Record<DeviceState, string> = {
  pending: 'pending',
  offered: 'offered',
  downloading: 'downloading',
  installed: 'installed',
  confirmed: 'confirmed',
  failed: 'failed',
  fell_back: 'fell back',
  timed_out: 'timed out',
  skipped: 'skipped',
};

/** What each state means, in a sentence (shown as help beside the legend). */
export const STATE_MEANINGS: Record<DeviceState, string> = {
  pending: 'not offered yet: its wave has not started, or it has not asked since',
  offered: 'told about the rollout when it asked for one',
  downloading: 'fetched the firmware',
  installed: 'reported success; its new version not seen yet',
  confirmed: 'reported the target version: done',
  failed: 'reported a failure, or fell silent after reporting success',
  fell_back: 'came back on its old version after reporting success',
  timed_out: 'stayed offered, downloading or installed longer than the rollout’s timeout of that state',
  skipped: 'runs a version the rollout will not replace (anti-rollback): never offered, not waited for',
};

/**
 * The order of a progress bar's parts, left to right: done first, then the way there backwards,
 * the devices not offered yet, and the failures at the right end.
 */
export const BAR_ORDER: readonly DeviceState[] = [
  'confirmed',
  'skipped',
  'installed',
  'downloading',
  'offered',
  'pending',
  'timed_out',
  'fell_back',
  'failed',
];

/** One part of a progress bar: devices in one state. */
export interface StateSegment {
  key: DeviceState;
  label: string;
  count: number;
}

/** The parts of a progress bar in {@link BAR_ORDER}. */
export function barSegments(counts: StateCounts): StateSegment[] {
  return BAR_ORDER.map((key) => ({ key, label: STATE_LABELS[key], count: counts[key] }));
}

/** The parts of a legend in the API's counting order ({@link DEVICE_STATES}). */
export function legendSegments(counts: StateCounts): StateSegment[] {
  return DEVICE_STATES.map((key) => ({ key, label: STATE_LABELS[key], count: counts[key] }));
}

/** A share as the console writes it: `—` of nothing, else whole percents (`12 %`). */
export function shareText(part: number, whole: number): string {
  return whole === 0 ? '—' : `${Math.round((part / whole) * 100)} %`;
}

/**
 * The progress of some devices in one sentence, e.g. `120 of 200 devices confirmed (60 %); 3 failed,
 * 2 fell back`. The failures are named only when there are some.
 */
export function progressSentence(counts: StateCounts, format: (n: number) => string = String): string {
  const failures = [
    counts.failed > 0 ? `${format(counts.failed)} failed` : '',
    counts.fell_back > 0 ? `${format(counts.fell_back)} fell back` : '',
    counts.timed_out > 0 ? `${format(counts.timed_out)} timed out` : '',
  ].filter(Boolean);
  return (
    `${format(counts.confirmed)} of ${format(counts.targeted)} devices confirmed (${shareText(counts.confirmed, counts.targeted)})` +
    (failures.length ? `; ${failures.join(', ')}` : '')
  );
}

/**
 * The members of a rollout's group that are not its targets, in one sentence, or `null` when there
 * are none: `Not targeted: 1 of another device type (never offered it); 3 not registered (each
 * becomes a target when it registers; they hold the finish until then or until they leave the group).`
 */
export function notTargetedSentence(notApplicable: number, notRegistered: number, format: (n: number) => string = String): string | null {
  const parts = [
    notApplicable > 0 ? `${format(notApplicable)} of another device type (never offered it)` : '',
    notRegistered > 0
      ? `${format(notRegistered)} not registered (each becomes a target when it registers; ` +
        `${notRegistered === 1 ? 'it holds' : 'they hold'} the finish until then or until ${notRegistered === 1 ? 'it leaves' : 'they leave'} the group)`
      : '',
  ].filter(Boolean);
  return parts.length === 0 ? null : `Not targeted: ${parts.join('; ')}.`;
}

/** A result of reading a form field: the value, or a message for people naming what is wrong. */
export type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/**
 * Reads the plan form's waves, written like `10%, 30%, 100%` (commas, semicolons or spaces between
 * them), with the server's own reader of wave plans ({@link parseWavePlan}): the same bounds, the
 * same refusals, in the same words.
 * @returns the bounds as the API takes them (`"10%"`, `"50"`), or the message.
 */
export function parseWavesText(text: string): Parsed<string[]> {
  const items = text
    .split(/[\s,;]+/)
    .map((item) => item.trim())
    .filter(Boolean);
  const plan = parseWavePlan(items);
  return 'bounds' in plan ? { value: plan.bounds } : { error: plan.error.message };
}

/** How a wave's bound reads: `the first 10 % of the devices`, `the first 50 devices`; the last wave takes the rest. */
export function boundText(bound: string, last: boolean): string {
  const upTo = bound.endsWith('%') ? `the first ${bound.slice(0, -1)} % of the devices` : `the first ${bound} devices`;
  if (!last) return `up to ${upTo}`;
  return bound === '100%' ? 'every device left, and any that join the group' : `up to ${upTo}, then every device left and any that join`;
}

/**
 * Reads a threshold written as a percentage (`80`, `80%`, `12.5`) into a share from 0 to 1.
 * @param optional when true an empty field is `null` (no threshold).
 */
export function parsePercentText(text: string, what: string, optional: boolean): Parsed<number | null> {
  const trimmed = text.trim().replace(/\s*%$/, '');
  if (trimmed === '') return optional ? { value: null } : { error: `${what} is needed: a percentage from 0 to 100.` };
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(trimmed) || Number(trimmed) > 100) {
    return { error: `${what} must be a percentage from 0 to 100, like 80 or 12.5.` };
  }
  return { value: Math.round(Number(trimmed) * 100) / 10_000 };
}

/** A share from 0 to 1 as a percentage for people: `0.8` → `80 %`, `0.125` → `12.5 %`. */
export function percentOfShare(share: number): string {
  return `${Math.round(share * 10_000) / 100} %`;
}

/**
 * Units of a length in the plan form (a window's duration, a timeout), in seconds. Minutes are the
 * finest: a timeout is at least a minute, and nobody plans a window to the second.
 */
export const LENGTH_UNITS = { m: 60, h: 3600, d: 86_400 } as const;
export type LengthUnit = keyof typeof LENGTH_UNITS;
/** Each unit in words, for the unit's select. */
export const LENGTH_UNIT_LABELS: Record<LengthUnit, string> = { m: 'minutes', h: 'hours', d: 'days' };

/** A maintenance window as the plan form holds it (docs/decisions.md §10.1). */
export interface WindowText {
  /** 5-field cron expression, read by the server. */
  cron: string;
  /** A whole number of `unit`s. */
  length: string;
  unit: LengthUnit;
  /** IANA time zone, read by the server. */
  time_zone: string;
}

/** A ramp as the plan form holds it (docs/decisions.md §10.1). */
export interface RampText {
  base_per_minute: string;
  increment_factor: string;
  /** The rate grows each time this many more devices were `criterion`. */
  every: string;
  criterion: RampCriterion;
  maximum_per_minute: string;
}

/** An abort criterion as the plan form holds it (docs/decisions.md §10.2). */
export interface AbortText {
  failure: AbortFailure;
  /** Percent of the finished devices, `10` or `10%`. */
  threshold_percentage: string;
  min_finished: string;
  action: AbortAction;
}

/** A timeout as the plan form holds it: empty is none. */
export interface TimeoutText {
  length: string;
  unit: LengthUnit;
}

/** The maintenance windows, ramp, abort criteria and timeouts of the plan form ("schedule and safety"). */
export interface SafetyText {
  windows: WindowText[];
  /** `null`: no ramp. */
  ramp: RampText | null;
  abort_criteria: AbortText[];
  timeouts: Record<TimedState, TimeoutText>;
  /** `null`: no rollback policy (docs/decisions.md §10.4). */
  rollback: RollbackText | null;
}

/** The plan form's rollback policy as typed: the firmware to go back to, its triggers (either or both), whom it takes back. */
export interface RollbackText {
  /** A firmware id, `''` until one is chosen. */
  firmware_id: string;
  /** Percent of the targets, `''`: no share trigger. */
  failed_percentage: string;
  /** Devices, `''`: no count trigger. */
  failed_count: string;
  scope: 'failed' | 'all';
}

/** A new rollback policy: its firmware and trigger to be chosen, the failed devices taken back. */
export const NEW_ROLLBACK: RollbackText = { firmware_id: '', failed_percentage: '', failed_count: '', scope: 'failed' };

/** The plan form's schedule and safety when nothing is set: no window, ramp, criterion or timeout. */
export function noSafety(): SafetyText {
  return {
    windows: [],
    ramp: null,
    abort_criteria: [],
    timeouts: { offered: { length: '', unit: 'h' }, downloading: { length: '', unit: 'h' }, installed: { length: '', unit: 'h' } },
    rollback: null,
  };
}

/** A new window row: open 3 hours a time, in UTC (the CLI's `--tz` default), its cron expression to be written. */
export const NEW_WINDOW: WindowText = { cron: '', length: '3', unit: 'h', time_zone: 'UTC' };
/** A new ramp: the CLI's defaults for the factor and the maximum; the base rate and the increment to be written. */
export const NEW_RAMP: RampText = {
  base_per_minute: '',
  increment_factor: '2',
  every: '',
  criterion: 'confirmed',
  maximum_per_minute: '1000',
};
/** A new abort criterion row: its numbers to be written. */
export const NEW_ABORT: AbortText = { failure: 'failed', threshold_percentage: '', min_finished: '', action: 'pause' };

/**
 * The schedule and safety part of the rollout body (`POST /tenants/:tenant/rollouts`), exactly as
 * the operator API takes it; a part left out is none.
 */
export interface SafetyBody {
  windows?: { cron: string; duration_seconds: number; time_zone: string }[];
  ramp?: {
    base_per_minute: number;
    increment_factor: number;
    increment_every: { offered: number } | { confirmed: number };
    maximum_per_minute: number;
  };
  abort_criteria?: { failure: AbortFailure; threshold_percentage: number; min_finished: number; action: AbortAction }[];
  timeouts?: Partial<Record<TimedState, number>>;
  rollback?: { firmware_id: number; failed_percentage: number | null; failed_count: number | null; scope: 'failed' | 'all' };
}

/** Whole number in `[min, max]` written in `text`, else `undefined`. */
function wholeIn(text: string, min: number, max: number): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{1,9}$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return value >= min && value <= max ? value : undefined;
}

/** A length in words: `7 days`, `1 minute`. */
function lengthWords(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} seconds`;
}

/**
 * Reads the plan form's schedule and safety into the body's part, checking what the form can
 * (numbers, lengths and their bounds, the policy's own limits); the cron expressions and time zones
 * are judged by the server (its cron reader and time zone database), whose refusal names the field.
 * @returns the body's part, and a message in words per field, keyed by the field's API path
 *   (`windows[0].duration_seconds`, `ramp.increment_every`, `abort_criteria[1].min_finished`, `timeouts.offered`,
 *   `rollback.firmware_id`; `rollback` when the policy has no trigger).
 */
export function readSafety(text: SafetyText): { body: SafetyBody; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const body: SafetyBody = {};
  const lengthOf = (length: string, unit: LengthUnit, min: number, max: number, at: string, what: string): number => {
    const amount = wholeIn(length, 1, 1_000_000);
    const seconds = amount === undefined ? NaN : amount * LENGTH_UNITS[unit];
    if (!(seconds >= min && seconds <= max))
      errors[at] = `${what} must be a whole number of ${LENGTH_UNIT_LABELS[unit]}, from ${lengthWords(min)} to ${lengthWords(max)}.`;
    return seconds;
  };
  if (text.windows.length > MAX_WINDOWS) errors['windows'] = `A rollout takes at most ${MAX_WINDOWS} maintenance windows.`;
  if (text.windows.length > 0) {
    body.windows = text.windows.map((w, i) => {
      const at = `windows[${i}]`;
      if (w.cron.trim() === '') errors[`${at}.cron`] = 'The cron expression is needed, such as 0 2 * * * (02:00 every day).';
      if (w.time_zone.trim() === '') errors[`${at}.time_zone`] = 'The time zone is needed, such as Europe/Berlin or UTC.';
      const seconds = lengthOf(w.length, w.unit, 60, MAX_WINDOW_SECONDS, `${at}.duration_seconds`, 'How long it stays open');
      return { cron: w.cron.trim(), duration_seconds: seconds, time_zone: w.time_zone.trim() };
    });
  }
  const ramp = text.ramp;
  if (ramp) {
    const { perMinute, factor: factorLimits, every: everyLimits } = RAMP_LIMITS;
    const base = wholeIn(ramp.base_per_minute, perMinute.min, perMinute.max);
    if (base === undefined)
      errors['ramp.base_per_minute'] =
        `The first rate must be a whole number of offers a minute, from ${perMinute.min} to ${perMinute.max}.`;
    const factorText = ramp.increment_factor.trim();
    const factor = /^\d{1,2}(\.\d{1,3})?$/.test(factorText) ? Number(factorText) : NaN;
    if (!(factor >= factorLimits.min && factor <= factorLimits.max)) {
      errors['ramp.increment_factor'] = `The factor must be a number from ${factorLimits.min} to ${factorLimits.max}, like 2 or 1.5.`;
    }
    const every = wholeIn(ramp.every, everyLimits.min, everyLimits.max);
    if (every === undefined)
      errors['ramp.increment_every'] = `The step must be a whole number of devices, from ${everyLimits.min} to ${count(everyLimits.max)}.`;
    const maximum = wholeIn(ramp.maximum_per_minute, base ?? perMinute.min, perMinute.max);
    if (maximum === undefined) {
      errors['ramp.maximum_per_minute'] =
        `The most offers a minute must be a whole number from the first rate (${base ?? perMinute.min}) to ${perMinute.max}.`;
    }
    body.ramp = {
      base_per_minute: base ?? NaN,
      increment_factor: factor,
      increment_every: ramp.criterion === 'offered' ? { offered: every ?? NaN } : { confirmed: every ?? NaN },
      maximum_per_minute: maximum ?? NaN,
    };
  }
  if (text.abort_criteria.length > MAX_ABORT_CRITERIA)
    errors['abort_criteria'] = `A rollout takes at most ${MAX_ABORT_CRITERIA} abort criteria.`;
  if (text.abort_criteria.length > 0) {
    body.abort_criteria = text.abort_criteria.map((c, i) => {
      const at = `abort_criteria[${i}]`;
      const share = c.threshold_percentage.trim().replace(/\s*%$/, '');
      const percentage = /^\d{1,3}(\.\d{1,2})?$/.test(share) ? Number(share) : NaN;
      if (!(percentage > 0 && percentage <= 100))
        errors[`${at}.threshold_percentage`] = 'The share must be a percentage above 0 and at most 100, like 10 or 2.5.';
      const min = wholeIn(c.min_finished, 1, MAX_MIN_FINISHED);
      if (min === undefined)
        errors[`${at}.min_finished`] = `The least number of finished devices must be a whole number from 1 to ${count(MAX_MIN_FINISHED)}.`;
      return { failure: c.failure, threshold_percentage: percentage, min_finished: min ?? NaN, action: c.action };
    });
  }
  const timeouts: Partial<Record<TimedState, number>> = {};
  for (const state of TIMED_STATES) {
    const t = text.timeouts[state];
    if (t.length.trim() === '') continue;
    timeouts[state] = lengthOf(t.length, t.unit, TIMEOUT_LIMITS.min, TIMEOUT_LIMITS.max, `timeouts.${state}`, `The ${state} timeout`);
  }
  if (Object.keys(timeouts).length > 0) body.timeouts = timeouts;
  const rollback = text.rollback;
  if (rollback) {
    const firmwareId = wholeIn(rollback.firmware_id, 1, 2_147_483_647);
    if (firmwareId === undefined)
      errors['rollback.firmware_id'] = 'Choose the firmware to roll back to (a firmware marked as a rollback target).';
    const share = rollback.failed_percentage.trim().replace(/\s*%$/, '');
    const percentage = share === '' ? undefined : /^\d{1,3}(\.\d{1,2})?$/.test(share) ? Number(share) : NaN;
    if (percentage !== undefined && !(percentage > 0 && percentage <= 100))
      errors['rollback.failed_percentage'] = 'The share must be a percentage above 0 and at most 100, like 5 or 2.5.';
    const devices = rollback.failed_count.trim() === '' ? undefined : (wholeIn(rollback.failed_count, 1, 1_000_000) ?? NaN);
    if (devices !== undefined && Number.isNaN(devices))
      errors['rollback.failed_count'] = 'The number of devices must be a whole number from 1 to 1,000,000.';
    if (percentage === undefined && devices === undefined)
      errors['rollback'] = 'Give when to roll back: a share of the targets, a number of devices, or both.';
    body.rollback = {
      firmware_id: firmwareId ?? NaN,
      failed_percentage: percentage ?? null,
      failed_count: devices ?? null,
      scope: rollback.scope,
    };
  }
  return { body, errors };
}

/** `12,345`: whole numbers as the console writes them. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * The plan form's field a refusal of the operator API is about, as {@link readSafety} keys it: the
 * 400 names the body field (`windows`) and its message starts with the path inside it
 * (`windows[0].cron is not a valid cron expression…`, `ramp.increment_every.confirmed must be…`).
 * A rollback refusal names `rollback` or the field inside it (`rollback.firmware_id`, docs/decisions.md §10.4).
 * @returns the key (`windows[0].cron`, `ramp.increment_every`), the body field when the message
 *   names no field inside it, or `undefined` when the refusal is not about schedule and safety.
 */
export function safetyFieldOf(field: string | undefined, message: string): string | undefined {
  if (field === 'rollback' || field?.startsWith('rollback.')) return /^(rollback\.[a-z_]+)\b/.exec(message)?.[1] ?? field;
  if (field !== 'windows' && field !== 'ramp' && field !== 'abort_criteria' && field !== 'timeouts') return undefined;
  const inside = /^((?:windows|abort_criteria)\[\d+\]\.[a-z_]+|ramp\.[a-z_]+|timeouts\.(?:offered|downloading|installed))\b/.exec(message);
  return inside && inside[1].startsWith(field) ? inside[1] : field;
}
