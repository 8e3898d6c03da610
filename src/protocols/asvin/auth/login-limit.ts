import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ErrorMessages, HttpErrorWithHeaders } from '#src/platform/http/http-error.filter.js';
import { LoginMetrics } from './login-metrics.js';
import { FailedAuthentication, type FailureRule, type FailureStanding } from '#src/domain/access/failed-authentication.js';

/** The three rate-limit headers of a login answer, and `Retry-After` on a 429. */
export type LoginLimitHeaders = Record<string, string>;

/**
 * The login rate limit (docs/decisions.md §4): the one rule for failed authentication
 * ({@link FailedAuthentication}) with `LOGIN_RATE_LIMIT` failed logins (wrong signature, unknown or
 * revoked device key: the answers a guesser gets) per client address, and per device key text from
 * that address, per `LOGIN_RATE_WINDOW_SECONDS`. A device key is shared by a whole product line, so
 * it is never locked: a valid login is always accepted, however many wrong ones came from the same
 * address; a failed login over the limit is answered 429 instead of 401, until the window ends.
 * Successful logins, stale timestamps and replays cost nothing.
 */
@Injectable()
export class LoginLimit {
  private readonly rule: FailureRule;

  constructor(
    private readonly failures: FailedAuthentication,
    @Inject(APP_CONFIG) config: AppConfig,
    /** Absent in the CLI, which serves no logins. */
    @Optional() private readonly metrics?: LoginMetrics,
  ) {
    this.rule = { scope: 'device-login', limit: config.loginRateLimit, windowSeconds: config.loginRateWindowSeconds };
  }

  /**
   * Reads the failures of `ip` and `deviceKey` without counting.
   * @returns the headers every login answer carries.
   */
  async admit(ip: string, deviceKey: string): Promise<LoginLimitHeaders> {
    return headersOf(await this.failures.before(this.rule, { address: ip, subject: deviceKey }));
  }

  /**
   * Counts one failed login of `ip` and `deviceKey`.
   * @returns the rate-limit headers after it, for the 401.
   * @throws HttpErrorWithHeaders 429 `Too many requests in this time frame` with those headers and
   *   `Retry-After` (seconds) when the address, or the device key from it, is over the limit.
   */
  async countFailure(ip: string, deviceKey: string): Promise<LoginLimitHeaders> {
    const standing = await this.failures.failed(this.rule, { address: ip, subject: deviceKey });
    const headers = headersOf(standing);
    if (standing.retryAfter !== null) {
      this.metrics?.record('rate_limited');
      throw new HttpErrorWithHeaders(429, ErrorMessages.tooManyRequests, { ...headers, 'Retry-After': String(standing.retryAfter) });
    }
    return headers;
  }
}

function headersOf(standing: FailureStanding): LoginLimitHeaders {
  return {
    'X-RateLimit-Limit': String(standing.limit),
    'X-RateLimit-Remaining': String(standing.remaining),
    'X-RateLimit-Reset': String(standing.resetsAt),
  };
}

/** The device key text of a login body as parsed, `''` when there is none (a 400 still gets its headers). */
export function loginDeviceKey(body: unknown): string {
  const key = typeof body === 'object' && body !== null ? (body as { device_key?: unknown }).device_key : undefined;
  return typeof key === 'string' ? key : '';
}

/**
 * Runs before the body is validated, so every login answer (200, 400, 401, 429) carries
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` (failed logins left) and `X-RateLimit-Reset`
 * (epoch seconds) ({@link LoginLimit.admit}); it refuses nothing. The client address is fastify's
 * `request.ip`, which honours `X-Forwarded-For` only with `TRUST_PROXY`.
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
