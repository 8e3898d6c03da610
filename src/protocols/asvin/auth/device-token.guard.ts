import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DeviceTokenService } from './device-token.service.js';
import { PRINCIPAL, type DevicePrincipal } from './device-principal.js';

/** The one 401 text of version-controller and blockchain endpoints (docs/device-interface.md, docs/decisions.md §3). */
export const INVALID_TOKEN = 'JWT is not valid';

/**
 * Admits requests with a valid device token in `X-Access-Token` (any case) or
 * `Authorization: Bearer`; anything else is 401 `JWT is not valid`.
 */
@Injectable()
export class DeviceTokenGuard implements CanActivate {
  constructor(private readonly tokens: DeviceTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { [PRINCIPAL]?: DevicePrincipal }>();
    const token = tokenOf(request);
    const principal = token ? await this.tokens.verify(token) : null;
    if (!principal) throw new UnauthorizedException(INVALID_TOKEN);
    request[PRINCIPAL] = principal;
    return true;
  }
}

/** The device token of a request: `X-Access-Token` (trimmed), else `Authorization: Bearer`. */
export function tokenOf(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const header = request.headers['x-access-token'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct?.trim()) return direct.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return bearer?.[1];
}
