import { ForbiddenException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** 403 text of a change a browser sent from another site. */
export const CROSS_SITE_REFUSED = 'Cross-site request refused';

/**
 * Whether the browser says a request was started by another origin (cross-site request forgery
 * with the session cookie): `Sec-Fetch-Site` other than `same-origin`, or an `Origin` other than
 * this listener's own (`{protocol}://{Host}`; behind a proxy, `TRUST_PROXY` lets fastify read
 * `X-Forwarded-Proto` and `X-Forwarded-Host`). A request with neither header did not come from a
 * browser page and passes; the cookie's `SameSite=Strict` is the first line of defence anyway.
 */
export function isCrossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return true;
  const origin = request.headers.origin;
  return origin !== undefined && origin !== `${request.protocol}://${request.host}`;
}

/** @throws ForbiddenException `Cross-site request refused` when {@link isCrossSite}. */
export function refuseCrossSite(request: FastifyRequest): void {
  if (isCrossSite(request)) throw new ForbiddenException(CROSS_SITE_REFUSED);
}
