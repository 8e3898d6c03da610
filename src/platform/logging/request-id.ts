import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Request and response header carrying the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept only when it is a plain token: 1 to 128 of `A-Z a-z 0-9 . _ -`. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is a sane token (so a proxy's id
 * follows the request through), else a fresh random UUID. Nothing else from the header is kept,
 * so it cannot forge log lines or carry a secret of unbounded size.
 */
export function requestIdFor(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Injects the id of the request being served (see {@link requestIdFor}), for a log line about
 * the request written outside its request line: `logger.warn({ msg, reqId })`.
 */
export const RequestId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string => context.switchToHttp().getRequest<FastifyRequest>().id,
);
