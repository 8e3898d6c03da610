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
import { FailedAuthentication, type FailureRule } from '#src/domain/access/failed-authentication.js';
import { actorLabel, type Actor } from '#src/domain/ledger/ledger-actor.js';
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
 * Failed attempts (each of those 401s) are limited by the one rule for failed authentication
 * ({@link FailedAuthentication}, docs/decisions.md §4): more than `LOGIN_RATE_LIMIT` failures in
 * `LOGIN_RATE_WINDOW_SECONDS` from a client address and its failed attempts are answered 429
 * `Too many requests in this time frame` with `Retry-After` until the window ends. A valid token
 * or session is never refused because of failures (tokens are random: nobody guesses one), so
 * nobody sharing an operator's address can lock the operator out. Failures are counted where
 * logins are (the database, or Redis), shared by every instance. The address is fastify's
 * `request.ip`, which honours `X-Forwarded-For` only with `TRUST_PROXY`.
 */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  private readonly rule: FailureRule;

  constructor(
    private readonly tokens: OperatorTokenService,
    private readonly sessions: OperatorSessionService,
    private readonly cookies: SessionCookies,
    private readonly failures: FailedAuthentication,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rule = { scope: 'operator-token', limit: config.loginRateLimit, windowSeconds: config.loginRateWindowSeconds };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { [OPERATOR]?: OperatorPrincipal }>();
    const reply = http.getResponse<FastifyReply>();
    const principal = await this.authenticate(request, reply).catch((error: unknown) => this.countFailure(request, error, reply));
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
  private async countFailure(request: FastifyRequest, error: unknown, reply: FastifyReply): Promise<never> {
    if (!(error instanceof UnauthorizedException)) throw error;
    const standing = await this.failures.failed(this.rule, { address: request.ip, subject: 'operator credential' });
    if (standing.retryAfter !== null) {
      void reply.removeHeader('www-authenticate');
      throw tooManyFailures(standing.retryAfter * 1000);
    }
    throw error;
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
