/** Source of the current time; injected so tests can fix it (skew window, start dates). */
export abstract class Clock {
  /** Milliseconds since the Unix epoch. */
  abstract now(): number;
}

/** The real clock. */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the wire format of `start_date` (docs/device-interface.md, docs/decisions.md §8). */
export function formatUtc(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Parses `YYYY-MM-DD HH:MM:SS` as UTC.
 * @returns epoch milliseconds, or `null` when the text is not a real date and time in that format.
 */
export function parseUtc(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return formatUtc(ms) === text ? ms : null;
}
