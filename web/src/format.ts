/** Number formats and times as the console writes them (English, UTC shown explicitly). */

const integer = new Intl.NumberFormat('en');

/** `100000` → `100,000`. */
export const count = (value: number): string => integer.format(value);

/** A share as a percentage with no decimals, `—` when there is nothing to share. */
export const percent = (part: number, whole: number): string => (whole === 0 ? '—' : `${Math.round((part / whole) * 100)} %`);

/** Bytes in the largest binary unit that keeps a number ≥ 1: `700000` → `683.6 KiB`. */
export function bytes(value: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let size = value;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return unit === 0 ? `${count(value)} bytes` : `${size.toFixed(1)} ${units[unit]}`;
}

/** An ISO time as `2026-11-21 10:05:00 UTC`. */
export function utc(iso: string | null): string {
  if (iso === null) return 'never';
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/** How long ago an ISO time was, in words: `just now`, `5 min ago`, `3 h ago`, `2 days ago`, `never`. */
export function ago(iso: string | null, now = Date.now()): string {
  if (iso === null) return 'never';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86_400);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

/** The first and last characters of a long hex text: `3f5a0c…f0246`. */
export const shortHash = (hash: string, keep = 8): string =>
  hash.length <= keep * 2 + 1 ? hash : `${hash.slice(0, keep)}…${hash.slice(-keep)}`;

/** The current time as the `start_date` of a rollout: `YYYY-MM-DD HH:MM:SS`, UTC. */
export const nowUtc = (): string => new Date().toISOString().slice(0, 19).replace('T', ' ');
