/**
 * The operator console's reading of a rollout's progress and of the plan form, as pure functions
 * (no DOM, no React) so unit specs run them under node. The device states and their counting
 * order are the operator API's (docs/decisions.md §10); the console only names and orders them.
 */

import { DEVICE_STATES, type DeviceState, type StateCounts } from '#src/domain/rollout/policy/device-states.js';
import { parseWavePlan } from '#src/domain/rollout/policy/waves.js';

export { DEVICE_STATES, type DeviceState, type StateCounts };
export { MAX_WAVES } from '#src/domain/rollout/policy/waves.js';

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
};

/**
 * The order of a progress bar's parts, left to right: done first, then the way there backwards,
 * the devices not offered yet, and the failures at the right end.
 */
export const BAR_ORDER: readonly DeviceState[] = [
  'confirmed',
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
