const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses an ISO 8601 date (`2026-11-21`) or date-time (`2026-11-21T10:00:00Z`,
 * `2026-11-21T12:00:00.000+02:00`); a date or a time without an offset is read as UTC.
 * @returns epoch milliseconds, or `null` when the text is not a real date and time in that form.
 */
export function parseIsoTime(text: string): number | null {
  const m = ISO_TIME.exec(text);
  if (!m) return null;
  const [, year, month, day, hour, minute, second, zone] = m;
  const calendar = new Date(Date.UTC(+year, +month - 1, +day));
  if (calendar.getUTCFullYear() !== +year || calendar.getUTCMonth() !== +month - 1 || calendar.getUTCDate() !== +day) return null;
  if (hour !== undefined && (+hour > 23 || +minute > 59 || (second !== undefined && +second > 59))) return null;
  if (zone !== undefined && zone !== 'Z' && (+zone.slice(1, 3) > 23 || +zone.slice(-2) > 59)) return null;
  const ms = Date.parse(hour === undefined ? text : zone === undefined ? `${text}Z` : text);
  return Number.isFinite(ms) ? ms : null;
}
