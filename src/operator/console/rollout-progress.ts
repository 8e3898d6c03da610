/**
 * The operator console's reading of a rollout's progress and of the plan form, as pure functions
 * (no DOM, no React) so unit specs run them under node. The device states and their counting
 * order are the operator API's (README "Rollout semantics"); the console only names and orders them.
 */

/** A targeted device's state in one rollout, in the order the operator API counts them. */
export const DEVICE_STATES = ['pending', 'offered', 'downloading', 'installed', 'confirmed', 'failed', 'fell_back'] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

/** Devices per state, and how many there are in all (`targeted`), as the operator API answers them. */
export type StateCounts = { targeted: number } & Record<DeviceState, number>;

/** Each state in words, for legends and tables. */
export const STATE_LABELS: Record<DeviceState, string> = {
  pending: 'pending',
  offered: 'offered',
  downloading: 'downloading',
  installed: 'installed',
  confirmed: 'confirmed',
  failed: 'failed',
  fell_back: 'fell back',
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
};

/**
 * The order of a progress bar's parts, left to right: done first, then the way there backwards,
 * the devices not offered yet, and the failures at the right end.
 */
export const BAR_ORDER: readonly DeviceState[] = ['confirmed', 'installed', 'downloading', 'offered', 'pending', 'fell_back', 'failed'];

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
  ].filter(Boolean);
  return (
    `${format(counts.confirmed)} of ${format(counts.targeted)} devices confirmed (${shareText(counts.confirmed, counts.targeted)})` +
    (failures.length ? `; ${failures.join(', ')}` : '')
  );
}

/** Most waves a rollout may have (the operator API refuses more). */
export const MAX_WAVES = 20;

/** A result of reading a form field: the value, or a message for people naming what is wrong. */
export type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/**
 * Reads the plan form's waves, written like `10%, 30%, 100%` (commas, semicolons or spaces between
 * them): each a share of the devices targeted at start (`10%`, above 0 and at most 100, up to two
 * decimals) or a whole number of devices (`50`), cumulative, so none below the one before it (of
 * the same kind), 1 to {@link MAX_WAVES} of them.
 * @returns the bounds as the API takes them (`"10%"`, `"50"`), or a message in words.
 */
export function parseWavesText(text: string): Parsed<string[]> {
  const items = text
    .split(/[\s,;]+/)
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) return { error: 'Name at least one wave, e.g. “100%” for all devices at once, or “10%, 100%”.' };
  if (items.length > MAX_WAVES) return { error: `A rollout has at most ${MAX_WAVES} waves; this names ${items.length}.` };
  const bounds: string[] = [];
  let lastShare = 0;
  let lastCount = 0;
  for (const [index, item] of items.entries()) {
    const wave = `Wave ${index + 1} (“${item}”)`;
    const share = /^(\d{1,3}(?:\.\d{1,2})?)%$/.exec(item);
    if (share) {
      const value = Number(share[1]);
      if (value <= 0 || value > 100) return { error: `${wave} must be a share above 0% and at most 100%.` };
      if (value < lastShare)
        return { error: `${wave} is below the wave before it: each wave counts the devices of the waves before it too.` };
      lastShare = value;
      bounds.push(`${value}%`);
    } else if (/^\d{1,9}$/.test(item) && Number(item) >= 1) {
      const value = Number(item);
      if (value < lastCount)
        return { error: `${wave} is below the wave before it: each wave counts the devices of the waves before it too.` };
      lastCount = value;
      bounds.push(String(value));
    } else {
      return { error: `${wave} is neither a share like “10%” nor a whole number of devices like “50”.` };
    }
  }
  return { value: bounds };
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
