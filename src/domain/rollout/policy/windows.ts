/**
 * Maintenance windows of a rollout (docs/decisions.md §10.1): when a device may install it. Each
 * window opens at every time a 5-field cron expression names, in an IANA time zone (so `0 2 * * *`
 * in `Europe/Berlin` is 02:00 Berlin time, summer and winter alike), and stays open for its
 * duration. Pure: the rollout engine asks {@link windowAt} with the clock's time; the cron
 * expressions are read by croner (daylight saving changes are croner's: a time skipped by the
 * change of clocks in spring fires at the first instant after it, a time repeated in autumn once).
 */
import { Cron } from 'croner';
import { MAX_WINDOWS, MAX_WINDOW_SECONDS } from './window-limits.js';

export { MAX_WINDOWS, MAX_WINDOW_SECONDS } from './window-limits.js';

/** Longest cron expression taken, characters (the stored windows fit their column). */
export const MAX_CRON_LENGTH = 80;

/** A maintenance window as stored and as the engine reads it. */
export interface MaintenanceWindow {
  /** 5 fields: minute hour day-of-month month day-of-week (croner's syntax: `*`, lists, ranges, steps, names). */
  cron: string;
  /** How long it stays open after each time the cron expression names, seconds (1 to {@link MAX_WINDOW_SECONDS}). */
  durationSeconds: number;
  /** IANA time zone the cron expression is read in, e.g. `Europe/Berlin`, `UTC`. */
  timeZone: string;
}

/** Where a set of windows stands at one instant. */
export interface WindowState {
  /** Inside a window (also: the rollout has no windows). */
  open: boolean;
  /**
   * Epoch ms of the next opening (the earliest of all windows): while closed, when a window opens;
   * while open, the first opening after the open window closes. `null` with no windows or none to come.
   */
  nextOpen: number | null;
  /** While open: epoch ms when the open window(s) close; `null` while closed or with no windows. */
  closesAt: number | null;
}

/** What is wrong with a window an operator gave: `field` is the API field the 400 names. */
export interface WindowError {
  field: string;
  message: string;
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads one window of the operator API (`{cron, duration_seconds, time_zone}`) or the CLI.
 * @param index 0-based place in the list, for the field name of the error (`windows[0].cron`).
 * @returns the window, or what is wrong with which field.
 */
export function parseWindow(input: unknown, index: number): { window: MaintenanceWindow } | { error: WindowError } {
  const at = `windows[${index}]`;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { error: { field: at, message: `${at} must be an object {cron, duration_seconds, time_zone}` } };
  }
  const { cron, duration_seconds: duration, time_zone: zone } = input as Record<string, unknown>;
  if (typeof cron !== 'string' || cron.length > MAX_CRON_LENGTH || cron.trim().split(/\s+/).length !== 5) {
    return {
      error: {
        field: `${at}.cron`,
        message: `${at}.cron must be a cron expression of 5 fields, such as "0 2 * * *", at most ${MAX_CRON_LENGTH} characters`,
      },
    };
  }
  if (typeof zone !== 'string' || !isTimeZone(zone)) {
    return { error: { field: `${at}.time_zone`, message: `${at}.time_zone must be an IANA time zone, such as "Europe/Berlin" or "UTC"` } };
  }
  try {
    new Cron(cron.trim(), { timezone: zone, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? `: ${error.message.replace(/^CronPattern: /, '')}` : '';
    return { error: { field: `${at}.cron`, message: `${at}.cron is not a valid cron expression${reason}` } };
  }
  if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > MAX_WINDOW_SECONDS) {
    return {
      error: {
        field: `${at}.duration_seconds`,
        message: `${at}.duration_seconds must be a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS}`,
      },
    };
  }
  return { window: { cron: cron.trim().split(/\s+/).join(' '), durationSeconds: duration, timeZone: zone } };
}

/**
 * Reads a list of windows ({@link parseWindow} each), at most {@link MAX_WINDOWS}.
 * @returns the windows, or the first error.
 */
export function parseWindows(input: unknown): { windows: MaintenanceWindow[] } | { error: WindowError } {
  if (!Array.isArray(input) || input.length > MAX_WINDOWS) {
    return { error: { field: 'windows', message: `windows must be a list of at most ${MAX_WINDOWS} maintenance windows` } };
  }
  const windows: MaintenanceWindow[] = [];
  for (const [index, item] of input.entries()) {
    const parsed = parseWindow(item, index);
    if ('error' in parsed) return parsed;
    windows.push(parsed.window);
  }
  return { windows };
}

/** Cron schedules by expression and zone: a few distinct ones are read on every poll. */
const schedules = new Map<string, Cron>();

function scheduleOf(window: MaintenanceWindow): Cron {
  const key = `${window.timeZone} ${window.cron}`;
  let schedule = schedules.get(key);
  if (schedule === undefined) {
    schedule = new Cron(window.cron, { timezone: window.timeZone, paused: true });
    if (schedules.size < 1000) schedules.set(key, schedule);
  }
  return schedule;
}

/** Most later openings that extend an open window (a window longer than the gap between its openings). */
const MAX_OVERLAPS = 100;

/**
 * Where the windows stand at `now` (epoch ms): a window is open from each time its cron expression
 * names (in its zone) for its duration, `[start, start + duration)`; windows that overlap or
 * follow each other without a gap count as one. No windows: always open.
 */
export function windowAt(windows: readonly MaintenanceWindow[], now: number): WindowState {
  if (windows.length === 0) return { open: true, nextOpen: null, closesAt: null };
  let nextOpen: number | null = null;
  let closesAt: number | null = null;
  for (const window of windows) {
    const schedule = scheduleOf(window);
    const length = window.durationSeconds * 1000;
    // The first opening whose window has not closed by now.
    let start: number | null = schedule.nextRun(new Date(now - length))?.getTime() ?? null;
    if (start !== null && start <= now) {
      let end = start + length;
      let last = start;
      for (let i = 0; i < MAX_OVERLAPS; i++) {
        const later: number | null = schedule.nextRun(new Date(last))?.getTime() ?? null;
        if (later === null || later > end) break;
        last = later;
        end = Math.max(end, later + length);
      }
      closesAt = Math.max(closesAt ?? 0, end);
      start = schedule.nextRun(new Date(end))?.getTime() ?? null;
    }
    if (start !== null && (nextOpen === null || start < nextOpen)) nextOpen = start;
  }
  return { open: closesAt !== null, nextOpen, closesAt };
}

/** The windows stored with a rollout (JSON text of {@link MaintenanceWindow}s; `'[]'`: none), remembered per text. */
const storedWindows = new Map<string, MaintenanceWindow[]>();

/** Reads a rollout's stored windows. */
export function storedWindowsOf(text: string | null | undefined): MaintenanceWindow[] {
  if (!text || text === '[]') return [];
  let windows = storedWindows.get(text);
  if (windows === undefined) {
    windows = JSON.parse(text) as MaintenanceWindow[];
    if (storedWindows.size < 1000) storedWindows.set(text, windows);
  }
  return windows;
}
