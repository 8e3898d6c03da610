import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LoginRateLimitStorage } from '#src/auth/login-rate-limit.storage.js';
import { Clock } from '#src/common/clock.js';
import { ErrorMessages, RetryLaterException } from '#src/common/http-error.filter.js';
import type { AppConfig } from '#src/config/app-config.js';
import { APP_CONFIG } from '#src/config/config.module.js';
import { OperatorTokenService, type OperatorPrincipal } from './operator-token.service.js';

/** The one 401 text of the operator API (CONTRACT.md §9). */
export const INVALID_OPERATOR_TOKEN = 'Operator token is not valid';

const OPERATOR = Symbol('firmledger.operator');

/** Blocked addresses this process remembers before it prunes the expired ones. */
const BLOCKED_SWEEP_SIZE = 10_000;

/**
 * Admits requests with `Authorization: Bearer <operator token>` naming a token that exists and
 * is not revoked; anything else is 401 `{"message":"Operator token is not valid"}` with
 * `WWW-Authenticate: Bearer` (RFC 6750). Device tokens are not accepted here.
 *
 * Failed attempts are limited per client address like logins: more than
 * `LOGIN_RATE_LIMIT` failures in `LOGIN_RATE_WINDOW_SECONDS` and the address is answered 429
 * `Too many requests in this time frame` with `Retry-After` until the window ends, whatever token
 * it sends (so guessing stops, a right guess included). Failures are counted where logins are
 * (the database, or Redis), shared by every instance; a valid token costs no count, and a blocked
 * address is refused by the process that learnt of the block without asking the store again.
 * The address is fastify's `request.ip`, which honours `X-Forwarded-For` only with `TRUST_PROXY`.
 */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  /** Epoch milliseconds until which an address is refused, as the shared counter last said. */
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly tokens: OperatorTokenService,
    @Inject(LoginRateLimitStorage) private readonly failures: LoginRateLimitStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { [OPERATOR]?: OperatorPrincipal }>();
    const now = this.clock.now();
    const until = this.blockedUntil.get(request.ip);
    if (until !== undefined) {
      if (until > now) throw tooManyFailures(until - now);
      this.blockedUntil.delete(request.ip);
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const principal = bearer ? await this.tokens.verify(bearer) : null;
    if (!principal) {
      const record = await this.failures.increment(
        `operator-auth|${request.ip}`,
        this.config.loginRateWindowSeconds * 1000,
        this.config.loginRateLimit,
      );
      if (record.isBlocked) {
        this.remember(request.ip, now + record.timeToBlockExpire * 1000, now);
        throw tooManyFailures(record.timeToBlockExpire * 1000);
      }
      void http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer realm="operator"');
      throw new UnauthorizedException(INVALID_OPERATOR_TOKEN);
    }
    request[OPERATOR] = principal;
    return true;
  }

  private remember(ip: string, until: number, now: number): void {
    if (this.blockedUntil.size >= BLOCKED_SWEEP_SIZE) {
      for (const [address, end] of this.blockedUntil) if (end <= now) this.blockedUntil.delete(address);
    }
    this.blockedUntil.set(ip, until);
  }
}

/** 429 with `Retry-After` (whole seconds, at least 1). */
function tooManyFailures(milliseconds: number): RetryLaterException {
  return new RetryLaterException(429, ErrorMessages.tooManyRequests, Math.max(1, Math.ceil(milliseconds / 1000)));
}

/** Injects the {@link OperatorPrincipal} set by {@link OperatorTokenGuard}. */
export const Operator = createParamDecorator(
  (_data: unknown, context: ExecutionContext): OperatorPrincipal =>
    context.switchToHttp().getRequest<{ [OPERATOR]: OperatorPrincipal }>()[OPERATOR],
);
