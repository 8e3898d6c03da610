import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { normalizePrefix } from '#src/platform/listeners/listener-plan.js';

/** Name of the console's session cookie. */
export const SESSION_COOKIE = 'firmledger_session';

/**
 * The value of one cookie in a `Cookie` request header (RFC 6265 §5.4: `name=value` pairs
 * separated by `;`, a value optionally in double quotes); `undefined` when absent.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/**
 * A `Set-Cookie` value for the session cookie: `HttpOnly` (scripts never read it),
 * `SameSite=Strict` (browsers never send it with a request another site starts), `Secure` when
 * the request came over TLS, limited to the operator base URL's path. A `null` token clears it.
 * @param maxAgeSeconds lifetime of a set cookie, seconds (the session's absolute lifetime).
 */
export function sessionCookie(token: string | null, options: { path: string; secure: boolean; maxAgeSeconds: number }): string {
  const attributes = [`Path=${options.path}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${token === null ? 0 : options.maxAgeSeconds}`];
  if (options.secure) attributes.push('Secure');
  return [`${SESSION_COOKIE}=${token ?? ''}`, ...attributes].join('; ');
}

/** Reads, sets and clears the session cookie under the operator base URL's path. */
@Injectable()
export class SessionCookies {
  private readonly path: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.path = normalizePrefix(config.urls.operator.pathname) || '/';
  }

  /** The session token the request's cookie carries, if any. */
  read(request: FastifyRequest): string | undefined {
    return readCookie(request.headers.cookie, SESSION_COOKIE) || undefined;
  }

  /** Sets the cookie to `token` for `maxAgeSeconds`. */
  set(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
    void reply.header('set-cookie', sessionCookie(token, { path: this.path, secure: request.protocol === 'https', maxAgeSeconds }));
  }

  /** Tells the browser to forget the cookie. */
  clear(request: FastifyRequest, reply: FastifyReply): void {
    void reply.header('set-cookie', sessionCookie(null, { path: this.path, secure: request.protocol === 'https', maxAgeSeconds: 0 }));
  }
}
