import { CanActivate, ExecutionContext, Injectable, UnauthorizedException, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OperatorTokenService, type OperatorPrincipal } from './operator-token.service.js';

/** The one 401 text of the operator API (CONTRACT.md §9). */
export const INVALID_OPERATOR_TOKEN = 'Operator token is not valid';

const OPERATOR = Symbol('firmledger.operator');

/**
 * Admits requests with `Authorization: Bearer <operator token>` naming a token that exists and
 * is not revoked; anything else is 401 `{"message":"Operator token is not valid"}` with
 * `WWW-Authenticate: Bearer` (RFC 6750). Device tokens are not accepted here.
 */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  constructor(private readonly tokens: OperatorTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { [OPERATOR]?: OperatorPrincipal }>();
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const principal = bearer ? await this.tokens.verify(bearer) : null;
    if (!principal) {
      void http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer realm="operator"');
      throw new UnauthorizedException(INVALID_OPERATOR_TOKEN);
    }
    request[OPERATOR] = principal;
    return true;
  }
}

/** Injects the {@link OperatorPrincipal} set by {@link OperatorTokenGuard}. */
export const Operator = createParamDecorator(
  (_data: unknown, context: ExecutionContext): OperatorPrincipal =>
    context.switchToHttp().getRequest<{ [OPERATOR]: OperatorPrincipal }>()[OPERATOR],
);
