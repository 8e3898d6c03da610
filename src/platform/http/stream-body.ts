import { BadRequestException, UnsupportedMediaTypeException, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { errorCodes, type FastifyInstance, type FastifyRequest, type RouteOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** The media type of a streamed binary body (the default of {@link StreamBody}). */
export const STREAM_MEDIA_TYPE = 'application/octet-stream';

/** Media types of streamed rows: a bulk import (docs/decisions.md §14). */
export const CSV_MEDIA_TYPE = 'text/csv';
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

/** Every media type a {@link StreamBody} route may take. */
const STREAM_MEDIA_TYPES = [STREAM_MEDIA_TYPE, CSV_MEDIA_TYPE, NDJSON_MEDIA_TYPE] as const;
export type StreamMediaType = (typeof STREAM_MEDIA_TYPES)[number];

/** 415 text of a streamed body of another media type than `types`. */
export const unsupportedStreamType = (types: readonly StreamMediaType[]): string => `Body must be ${types.join(' or ')}`;

/** Texts of the streamed-body errors (docs/decisions.md §3 shapes, §9 firmware upload). */
export const StreamBodyMessages = {
  unsupportedMediaType: unsupportedStreamType([STREAM_MEDIA_TYPE]),
  interrupted: 'Body ended before it was complete',
} as const;

/** Route config key that marks a route as taking a streamed body. */
const STREAM_BODY = 'firmledgerStreamBody';

/**
 * Marks a route as taking a streamed body of one of `types` (default `application/octet-stream`;
 * any size: the handler decides the limit while reading). Every other route keeps the JSON-only
 * parser of `installJsonBodyParser`: 16 KiB, 415 for other media types.
 */
export const StreamBody = (types: readonly StreamMediaType[] = [STREAM_MEDIA_TYPE]): MethodDecorator =>
  RouteConfig({ [STREAM_BODY]: types });

/**
 * The body of a {@link StreamBody} route as a stream, nothing of it read yet; an empty stream
 * when the request had no body. Not run through the validation pipe.
 */
export const BodyStream = createParamDecorator((_data: unknown, context: ExecutionContext): Readable => {
  const body = context.switchToHttp().getRequest<FastifyRequest>().body;
  return body instanceof Readable ? body : Readable.from([]);
});

/**
 * Lets {@link StreamBody} routes receive their bodies as streams (call after
 * `installJsonBodyParser`, before the routes are registered):
 *
 * - the parser of the streamed media types (`application/octet-stream`, `text/csv`,
 *   `application/x-ndjson`) hands a route that takes the body's type a {@link requestBodyStream}
 *   of the request without reading it; on any other route it answers 415 as if there were no
 *   parser (the JSON-only rule and its message stay as they are);
 * - a stream route refuses a body of any other media type with 415 `Body must be …` (its types)
 *   before a parser reads a byte of it;
 * - a stream route's answer carries `Connection: close` whenever the body was not read to its
 *   end (an auth failure, a 413 on the declared length or mid-stream, a bulk import stopped at its
 *   bad rows), so the server never reads the rest of a body it has refused.
 */
export function installStreamBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser([...STREAM_MEDIA_TYPES], (request, payload, done) => {
    if (streamTypesOf(request)?.includes(mediaTypeOf(request.headers['content-type'] ?? '') as StreamMediaType)) {
      return done(null, requestBodyStream(payload));
    }
    if (request.is404) return done(null, undefined);
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE());
  });
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const types = (route.config as Record<string, unknown> | undefined)?.[STREAM_BODY] as readonly StreamMediaType[] | undefined;
    if (types === undefined) return;
    route.preParsing = [
      ...asArray(route.preParsing),
      (request, _reply, payload, done) => {
        const type = request.headers['content-type'];
        const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
        if (type === undefined ? hasBody : !types.includes(mediaTypeOf(type) as StreamMediaType)) {
          return done(new UnsupportedMediaTypeException(unsupportedStreamType(types)));
        }
        done(null, payload);
      },
    ];
    route.onSend = [
      ...asArray(route.onSend),
      (request, reply, payload, done) => {
        if (!request.raw.complete) void reply.header('connection', 'close');
        done(null, payload);
      },
    ];
  });
}

/**
 * Wraps a request so a handler can read its body as a stream, or abandon it: destroying the
 * wrapper (a size limit crossed mid-stream) stops delivering bytes but leaves the socket open,
 * so the error answer still reaches the client; the rest of the body is read and discarded
 * until that answer (with `Connection: close`) ends the connection. Nothing is read before the
 * wrapper is read. A client that goes away mid-body, or went away before the wrapper was made,
 * destroys the wrapper with a 400.
 */
export function requestBodyStream(raw: IncomingMessage): Readable {
  raw.pause();
  let ended = false;
  const onData = (chunk: Buffer): void => {
    if (!body.push(chunk)) raw.pause();
  };
  const onEnd = (): void => {
    ended = true;
    detach();
    body.push(null);
  };
  const onAbort = (): void => {
    if (!ended) body.destroy(new BadRequestException(StreamBodyMessages.interrupted));
  };
  const detach = (): void => {
    raw.off('data', onData);
    raw.off('end', onEnd);
    raw.off('error', onAbort);
    raw.off('close', onAbort);
  };
  const body = new Readable({
    read: () => void raw.resume(),
    destroy: (error, callback) => {
      detach();
      // Discard what is still on its way; the answer closes the connection.
      if (!ended && !raw.destroyed) raw.resume();
      callback(error);
    },
  });
  // A client may go away before anyone reads the body (while the guard or a lookup runs): the error
  // is kept on the stream for a later reader, never thrown as an unhandled 'error' event.
  body.on('error', () => undefined);
  raw.on('data', onData);
  raw.on('end', onEnd);
  raw.on('error', onAbort);
  raw.on('close', onAbort);
  // A client gone before this ran (its socket closed while a hook waited, on a busy server) sends
  // no more events: without this, a reader would wait for the rest of the body forever, and an
  // upload's temporary file with it.
  if (raw.destroyed && !raw.complete) onAbort();
  return body;
}

/** The media types a {@link StreamBody} route takes, `undefined` on any other route. */
function streamTypesOf(request: FastifyRequest): readonly StreamMediaType[] | undefined {
  return (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[STREAM_BODY] as
    readonly StreamMediaType[] | undefined;
}

/** `Application/Octet-Stream; x=y` → `application/octet-stream`. */
function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
