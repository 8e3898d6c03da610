import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Login timestamps for many devices sharing one device key.
 *
 * The server accepts a login only when its timestamp is within ±`AUTH_MAX_SKEW_SECONDS` of
 * server time, and accepts each `(device key, timestamp)` once ever (CONTRACT.md §4, replay).
 * A field device logs in rarely and just sends the current time; a thousand simulated devices
 * sharing a key and starting within one second would all send the same timestamp and all but
 * one would get 401. So each login gets its own timestamp per device key:
 *
 * - The first one is `now - reach` (reach = skew minus a safety margin, 290 s by default), the
 *   next ones count up by one second: `now-290, now-289, …`.
 * - The counter never goes back (it does not wrap): a timestamp handed out once may have been
 *   accepted, and sending it again is a replay. It is only lifted to `now - reach` when the
 *   clock has moved past it.
 * - When the counter has reached `now + reach`, the window is used up: the grant says to wait
 *   until the timestamp is within reach (`sendAtSeconds`). This is the server's real limit:
 *   one key supports about `2 × reach` logins at once and then one login per second.
 *
 * Counters live in one process-wide allocator (several `simulate()` calls in one process share
 * them) and are remembered between runs in a small file per key (see {@link persistLoginTimestamps}),
 * because a second run within the skew window would otherwise reuse the first run's timestamps.
 */
export interface TimestampGrant {
  /** Unix seconds to put in the login. */
  timestamp: number;
  /** Unix second from which the timestamp is within reach of the clock; send no earlier. */
  sendAtSeconds: number;
}

/** Margin kept inside the server's skew window for clock differences and request latency. */
export function skewMarginSeconds(maxSkewSeconds: number): number {
  return Math.min(10, Math.floor(maxSkewSeconds / 4));
}

/** Hands out distinct login timestamps per device key; see the module comment for why. */
export class LoginTimestampAllocator {
  private readonly next = new Map<string, number>();

  /**
   * Reserves the next timestamp for `deviceKey`.
   * @param nowSeconds the current Unix time, whole seconds.
   * @param reachSeconds how far from now a timestamp may be (skew minus margin), >= 0.
   * @returns a timestamp no other call returned for this key, and when it may be sent.
   */
  allocate(deviceKey: string, nowSeconds: number, reachSeconds: number): TimestampGrant {
    const timestamp = Math.max(this.next.get(deviceKey) ?? -Infinity, nowSeconds - reachSeconds);
    this.next.set(deviceKey, timestamp + 1);
    return { timestamp, sendAtSeconds: Math.max(nowSeconds, timestamp - reachSeconds) };
  }

  /** The lowest timestamp not yet handed out for `deviceKey`, or undefined before the first. */
  nextFor(deviceKey: string): number | undefined {
    return this.next.get(deviceKey);
  }

  /** Marks every timestamp below `next` as used for `deviceKey` (never lowers the counter). */
  reserveBelow(deviceKey: string, next: number): void {
    if (!Number.isSafeInteger(next)) return;
    this.next.set(deviceKey, Math.max(this.next.get(deviceKey) ?? -Infinity, next));
  }
}

/** The allocator all simulations of this process share. */
export const sharedLoginTimestamps = new LoginTimestampAllocator();

/** Default directory of the per-key timestamp files. */
export function defaultTimestampStateDir(): string {
  return join(tmpdir(), 'firmledger-simulate');
}

/** File of one key: named by a hash, so the key itself is never written to disk. */
function stateFile(dir: string, deviceKey: string): string {
  const id = createHash('sha256').update(`firmledger-simulate\0${deviceKey}`).digest('hex').slice(0, 32);
  return join(dir, `login-timestamps-${id}.json`);
}

/**
 * Raises the allocator's counter for `deviceKey` to what an earlier run remembered in `dir`.
 * A missing or unreadable file is ignored.
 */
export async function restoreLoginTimestamps(allocator: LoginTimestampAllocator, deviceKey: string, dir: string): Promise<void> {
  try {
    const saved = JSON.parse(await readFile(stateFile(dir, deviceKey), 'utf8')) as { next?: unknown };
    if (typeof saved.next === 'number') allocator.reserveBelow(deviceKey, saved.next);
  } catch {
    // nothing remembered
  }
}

/**
 * Remembers the allocator's counter for `deviceKey` in `dir` for the next run.
 * Failures (read-only or missing temp dir) are ignored: the file is an optimisation.
 */
export async function persistLoginTimestamps(allocator: LoginTimestampAllocator, deviceKey: string, dir: string): Promise<void> {
  if (allocator.nextFor(deviceKey) === undefined) return;
  await restoreLoginTimestamps(allocator, deviceKey, dir); // another process may have gone further
  const next = allocator.nextFor(deviceKey)!;
  const file = stateFile(dir, deviceKey);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(temp, JSON.stringify({ next }), { mode: 0o600 });
    await rename(temp, file);
  } catch {
    // best effort
  }
}
