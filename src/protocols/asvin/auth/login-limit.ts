import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ErrorMessages, HttpErrorWithHeaders } from '#src/platform/http/http-error.filter.js';
import { LoginMetrics } from './login-metrics.js';
import { LoginRateLimitStorage, type LoginRateRecord } from '#src/domain/access/login-rate-limit.storage.js';

/** The three rate-limit headers of a login answer, and `Retry-After` on a 429. */
export type LoginLimitHeaders = Record<string, string>;

/**
 * The login rate limit (docs/decisions.md §4): at most `LOGIN_RATE_LIMIT` FAILED logins (wrong
 * signature, unknown or revoked device key: the answers a guesser gets) per client address and
 * device key text per `LOGIN_RATE_WINDOW_SECONDS`. Successful logins, stale timestamps and
 * replays cost nothing, so any number of devices sharing a key behind one address log in freely.
 * Once an address and key have used up their failures, every login of that pair, right or wrong,
 * is answered 429 until the window ends: guessing stops, and so do the genuine devices behind
 * that address using that key (the trade-off the README's security section states).
 * The counters are shared by every instance (the database, or Redis with `REDIS_URL`).
 */
@Injectable()
export class LoginLimit {
  constructor(
    private readonly counters: LoginRateLimitStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** Absent in the CLI, which serves no logins. */
    @Optional() private readonly metrics?: LoginMetrics,
  ) {}

  /**
   * Reads the failures of `ip` and `deviceKey` without counting.
   * @returns the headers every login answer carries.
   * @throws HttpErrorWithHeaders 429 `Too many requests in this time frame` with those headers
   *   and `Retry-After` (seconds) when the pair has no failure left in its window.
   */
  async admit(ip: string, deviceKey: string): Promise<LoginLimitHeaders> {
    const record = await this.counters.peek(counterKey(ip, deviceKey), this.windowMs, this.config.loginRateLimit);
    const headers = this.headers(record);
    if (record.totalHits >= this.config.loginRateLimit) this.refuse(record, headers);
    return headers;
  }

  /**
   * Counts one failed login of `ip` and `deviceKey`.
   * @returns the rate-limit headers after it.
   * @throws HttpErrorWithHeaders 429 when the pair was already over its limit (failures that
   *   raced past {@link admit} on other requests).
   */
  async countFailure(ip: string, deviceKey: string): Promise<LoginLimitHeaders> {
    const record = await this.counters.increment(counterKey(ip, deviceKey), this.windowMs, this.config.loginRateLimit);
    const headers = this.headers(record);
    if (record.isBlocked) this.refuse(record, headers);
    return headers;
  }

  private get windowMs(): number {
    return this.config.loginRateWindowSeconds * 1000;
  }

  private headers(record: LoginRateRecord): LoginLimitHeaders {
    const limit = this.config.loginRateLimit;
    return {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - record.totalHits)),
      'X-RateLimit-Reset': String(record.resetsAt),
    };
  }

  private refuse(record: LoginRateRecord, headers: LoginLimitHeaders): never {
    this.metrics?.record('rate_limited');
    throw new HttpErrorWithHeaders(429, ErrorMessages.tooManyRequests, { ...headers, 'Retry-After': String(record.timeToExpire) });
  }
}

/** The counter of a client address and device key text: a hash, so keys of any length fit the store. */
function counterKey(ip: string, deviceKey: string): string {
  return `login:${createHash('sha256').update(`${ip}\0${deviceKey}`).digest('base64url')}`;
}

/** The device key text of a login body as parsed, `''` when there is none (a 400 still gets its headers). */
export function loginDeviceKey(body: unknown): string {
  const key = typeof body === 'object' && body !== null ? (body as { device_key?: unknown }).device_key : undefined;
  return typeof key === 'string' ? key : '';
}

/**
 * Runs before the body is validated, so every login answer (200, 400, 401, 429) carries
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` (failed logins left) and `X-RateLimit-Reset`
 * (epoch seconds); refuses a client address and device key without failures left with 429
 * ({@link LoginLimit.admit}). The client address is fastify's `request.ip`, which honours
 * `X-Forwarded-For` only with `TRUST_PROXY`.
 */
@Injectable()
export class LoginLimitGuard implements CanActivate {
  constructor(private readonly limit: LoginLimit) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const headers = await this.limit.admit(request.ip, loginDeviceKey(request.body));
    void http.getResponse<FastifyReply>().headers(headers);
    return true;
  }
}
