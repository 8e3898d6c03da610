/**
 * The polling interval of a tenant's hawkBit DDI devices (docs/decisions.md §12), as DDI writes it
 * in `config.polling.sleep`: `HH:MM:SS`. SWUpdate reads `00:00:00` as 45 seconds, so the shortest
 * interval is one second; the longest is under a day (`23:59:59`).
 */

/** Shortest and longest interval, seconds. */
export const DDI_POLLING_SECONDS = { min: 1, max: 86_399 } as const;

/** Interval of a tenant created without one: five minutes. */
export const DEFAULT_DDI_POLLING_SECONDS = 300;

/** 400 text of an interval that is not one. */
export const INVALID_POLLING_SLEEP = 'sleep must be HH:MM:SS from 00:00:01 to 23:59:59';

/** `HH:MM:SS` of a number of seconds below a day. */
export function formatPollingSleep(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor((seconds % 3600) / 60))}:${two(seconds % 60)}`;
}

/** The seconds of `HH:MM:SS` (minutes and seconds below 60), or `null` when it is not one or outside {@link DDI_POLLING_SECONDS}. */
export function parsePollingSleep(text: string): number | null {
  const match = /^(\d{2}):([0-5]\d):([0-5]\d)$/.exec(text);
  if (!match) return null;
  const seconds = Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
  return seconds >= DDI_POLLING_SECONDS.min && seconds <= DDI_POLLING_SECONDS.max ? seconds : null;
}
