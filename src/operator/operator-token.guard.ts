import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
  createParamDecorator,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LoginRateLimitStorage } from '#src/domain/access/login-rate-limit.storage.js';
import { actorLabel, type Actor } from '#src/domain/ledger/ledger-actor.js';
import { Clock } from '#src/platform/common/clock.js';
import { ErrorMessages, RetryLaterException } from '#src/platform/http/http-error.filter.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { setRequestActor } from '#src/platform/logging/request-actor.js';
import { principalActor } from '#src/domain/access/operator-principal.js';
import { isChange, mayChange, VIEWER_REFUSED } from '#src/domain/access/operator-role.js';
import { OperatorSessionService, SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { refuseCrossSite } from './same-origin.js';
import { SessionCookies } from './session-cookie.js';
import { OperatorTokenService, type OperatorPrincipal } from '#src/domain/access/operator-token.service.js';

/** The one 401 text of the operator API (docs/decisions.md §9). */
export const INVALID_OPERATOR_TOKEN = 'Operator token is not valid';

const OPERATOR = Symbol('firmledger.operator');

/** Blocked addresses this process remembers before it prunes the expired ones. */
const BLOCKED_SWEEP_SIZE = 10_000;

/**
 * Admits operator requests (docs/decisions.md §9) that carry either
 * - `Authorization: Bearer <operator token>` naming a token that exists and is not revoked, or
 * - the console's session cookie naming a live session (a change must also come from the
 *   console's own origin: 403 `Cross-site request refused` otherwise).
 * Without either: 401 `{"message":"Operator token is not valid"}` with `WWW-Authenticate: Bearer`
 * (RFC 6750); with a session cookie whose session has ended: 401 `Your session has ended: sign
 * in again` (and the cookie is cleared). Device tokens are not accepted here. A change (any
 * method but GET, HEAD, OPTIONS) needs the `admin` role: 403 for a viewer. The request's log line
 * names the operator (`actor`).
 *
 * Failed attempts (each of those 401s) are limited per client address like logins: more than
 * `LOGIN_RATE_LIMIT` failures in `LOGIN_RATE_WINDOW_SECONDS` and the address is answered 429
 * `Too many requests in this time frame` with `Retry-After` until the window ends, whatever token
 * or session it sends (so guessing stops, a right guess included). Failures are counted where
 * logins are (the database, or Redis), shared by every instance; a valid token or session costs
 * no count, and a blocked address is refused by the process that learnt of the block without
 * asking the store again. The address is fastify's `request.ip`, which honours `X-Forwarded-For`
 * only with `TRUST_PROXY`.
 */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  /** Epoch milliseconds until which an address is refused, as the shared counter last said. */
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly tokens: OperatorTokenService,
    private readonly sessions: OperatorSessionService,
    private readonly cookies: SessionCookies,
    @Inject(LoginRateLimitStorage) private readonly failures: LoginRateLimitStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { [OPERATOR]?: OperatorPrincipal }>();
    const reply = http.getResponse<FastifyReply>();
    const now = this.clock.now();
    const until = this.blockedUntil.get(request.ip);
    if (until !== undefined) {
      if (until > now) throw tooManyFailures(until - now);
      this.blockedUntil.delete(request.ip);
    }
    const principal = await this.authenticate(request, reply).catch((error: unknown) => this.countFailure(request.ip, now, error, reply));
    setRequestActor(request, actorLabel(principalActor(principal)));
    if (isChange(request.method) && !mayChange(principal.role)) throw new ForbiddenException(VIEWER_REFUSED);
    request[OPERATOR] = principal;
    return true;
  }

  private async authenticate(request: FastifyRequest, reply: FastifyReply): Promise<OperatorPrincipal> {
    const authorization = request.headers.authorization;
    const session = authorization === undefined ? this.cookies.read(request) : undefined;
    if (session !== undefined) {
      if (isChange(request.method)) refuseCrossSite(request);
      const live = await this.sessions.resolve(session);
      if (live) return live.principal;
      this.cookies.clear(request, reply);
      throw new UnauthorizedException(SESSION_ENDED);
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    const principal = bearer ? await this.tokens.verify(bearer) : null;
    if (!principal) {
      void reply.header('www-authenticate', 'Bearer realm="operator"');
      throw new UnauthorizedException(INVALID_OPERATOR_TOKEN);
    }
    return principal;
  }

  /**
   * Counts a failed authentication (a 401) of the address, and turns it into 429 once the address
   * is over its limit. Any other error (a cross-site change, a store that fails) passes unchanged.
   */
  private async countFailure(ip: string, now: number, error: unknown, reply: FastifyReply): Promise<never> {
    if (!(error instanceof UnauthorizedException)) throw error;
    const record = await this.failures.increment(
      `operator-auth|${ip}`,
      this.config.loginRateWindowSeconds * 1000,
      this.config.loginRateLimit,
    );
    if (record.isBlocked) {
      void reply.removeHeader('www-authenticate');
      this.remember(ip, now + record.timeToBlockExpire * 1000, now);
      throw tooManyFailures(record.timeToBlockExpire * 1000);
    }
    throw error;
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

/** Injects the ledger {@link Actor} of the operator admitted by {@link OperatorTokenGuard}: who makes the request's changes. */
export const OperatorActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor =>
  principalActor(context.switchToHttp().getRequest<{ [OPERATOR]: OperatorPrincipal }>()[OPERATOR]),
);
