import { Injectable } from '@nestjs/common';
import { LoginRateLimitStorage } from './login-rate-limit.storage.js';

/** Console sign-ins allowed per client address and username per window. */
export const SIGN_IN_LIMIT_PER_CLIENT = 10;
/** Console sign-ins allowed per username per window, from all addresses together. */
export const SIGN_IN_LIMIT_PER_ACCOUNT = 50;
/** The sign-in throttle's window, seconds. */
export const SIGN_IN_WINDOW_SECONDS = 900;

/**
 * Throttles console sign-ins: every attempt counts, {@link SIGN_IN_LIMIT_PER_CLIENT} per client
 * address and username and {@link SIGN_IN_LIMIT_PER_ACCOUNT} per username (an attack spread over
 * many addresses) in {@link SIGN_IN_WINDOW_SECONDS}. The counters are the device logins' fixed
 * windows, in the same store (the database, or Redis with `REDIS_URL`), so every instance shares
 * them; the keys have a prefix of their own.
 */
@Injectable()
export class SignInThrottle {
  constructor(private readonly counters: LoginRateLimitStorage) {}

  /**
   * Counts one sign-in attempt.
   * @returns `null` when it may go on, else the seconds until it may be tried again.
   */
  async attempt(clientIp: string, username: string): Promise<number | null> {
    const window = SIGN_IN_WINDOW_SECONDS * 1000;
    const account = `operator-sign-in:${username.toLowerCase()}`;
    const [perClient, perAccount] = await Promise.all([
      this.counters.increment(`${account}:${clientIp}`, window, SIGN_IN_LIMIT_PER_CLIENT),
      this.counters.increment(account, window, SIGN_IN_LIMIT_PER_ACCOUNT),
    ]);
    const blocked = [perClient, perAccount].filter((record) => record.isBlocked);
    return blocked.length === 0 ? null : Math.max(...blocked.map((record) => record.timeToBlockExpire));
  }
}
