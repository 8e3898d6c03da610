import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorLabel, type Actor } from '#src/chain/ledger-actor.js';
import { setRequestActor } from '#src/logging/request-actor.js';
import { principalActor } from '#src/operator-account/operator-principal.js';
import { isChange, mayChange, VIEWER_REFUSED } from '#src/operator-account/operator-role.js';
import { OperatorSessionService, SESSION_ENDED } from '#src/operator-account/operator-session.service.js';
import { refuseCrossSite } from '#src/operator-account/same-origin.js';
import { SessionCookies } from '#src/operator-account/session-cookie.js';
import { OperatorTokenService, type OperatorPrincipal } from './operator-token.service.js';

/** The one 401 text of the operator API (CONTRACT.md §9). */
export const INVALID_OPERATOR_TOKEN = 'Operator token is not valid';

const OPERATOR = Symbol('firmledger.operator');

/**
 * Admits operator requests (CONTRACT.md §9) that carry either
 * - `Authorization: Bearer <operator token>` naming a token that exists and is not revoked, or
 * - the console's session cookie naming a live session (a change must also come from the
 *   console's own origin: 403 `Cross-site request refused` otherwise).
 * Without either: 401 `{"message":"Operator token is not valid"}` with `WWW-Authenticate: Bearer`
 * (RFC 6750); with a session cookie whose session has ended: 401 `Your session has ended: sign
 * in again` (and the cookie is cleared). Device tokens are not accepted here. A change (any
 * method but GET, HEAD, OPTIONS) needs the `admin` role: 403 for a viewer. The request's log line
 * names the operator (`actor`).
 */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  constructor(
    private readonly tokens: OperatorTokenService,
    private readonly sessions: OperatorSessionService,
    private readonly cookies: SessionCookies,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { [OPERATOR]?: OperatorPrincipal }>();
    const reply = http.getResponse<FastifyReply>();
    const principal = await this.authenticate(request, reply);
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
