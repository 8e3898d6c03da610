import { ArgumentsHost, BadRequestException, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentName } from '#src/platform/config/components.js';
import { pathOf, routeComponent } from '#src/platform/logging/request-observer.js';
import type { FieldMessageResponse, MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { JsonTextMessages } from '#src/platform/common/json-text.js';
import { isDatabaseUnreachable } from '#src/platform/common/dependency-unreachable.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** Texts of the framework-level errors (docs/decisions.md §3). */
export const ErrorMessages = {
  notFound: 'Not Found',
  serverError: 'Error on server',
  malformedJson: JsonTextMessages.malformed,
  tooLarge: 'Body is too large',
  unsupportedMediaType: 'Body must be application/json',
  tooManyRequests: 'Too many requests in this time frame',
  databaseUnavailable: 'Database unavailable, retry later',
} as const;

/**
 * `Retry-After` of a 503 for an unreachable database, seconds: the server reconnects by itself
 * on the next request once the database answers again (docs/deployment.md "Outages").
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Least time between two log lines about requests answered 503 for an unreachable database, milliseconds. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * An error answer that carries headers beside its `{"message": ...}` body, such as the
 * `Content-Range` with the full size of a 416. The filter sends them with the body.
 */
export class HttpErrorWithHeaders extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super(message, status);
  }
}

/**
 * A request refused for now, to be tried again in `retryAfterSeconds`: 429 when the caller is
 * over its own share, 503 when the server is. The answer carries `Retry-After` and the message;
 * it is not a server error and is not logged as one.
 */
export class RetryLaterException extends HttpErrorWithHeaders {
  constructor(
    status: 429 | 503,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(status, message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/**
 * 503 with its own message, for a server that is up but cannot serve this now (not ready yet,
 * shutting down): a state of the moment, so `Cache-Control: no-store`. Deliberate, so it is not
 * logged as a server error.
 */
export class UnavailableException extends HttpErrorWithHeaders {
  constructor(message: string) {
    super(503, message, { 'Cache-Control': 'no-store' });
  }
}

/**
 * 400 about one field of the request: a body field, a query parameter or a path parameter, named
 * by `field` as the request spells it (`success_threshold`, `macs`, `tree_size`; a field inside
 * an object as a dotted path). The validation pipe and the services throw it for a field's text.
 * Where {@link FIELD_NAMING_COMPONENTS} serve the route the answer names the field,
 * `{"message": ..., "field": ...}`, so a form can show the message at the field; everywhere else it
 * is the usual `{"message": ...}` (docs/decisions.md §3).
 */
export class FieldException extends BadRequestException {
  /**
   * @param errors every problem found, when there are several (a bulk import's bad rows): sent
   *   beside `message` and `field` as `errors`.
   */
  constructor(
    readonly field: string,
    message: string,
    readonly errors?: readonly object[],
  ) {
    super(message);
  }
}

/**
 * The components whose 400 answers name the field ({@link FieldException}): the operator API only.
 * The device-facing components answer exactly `{"message": ...}`, as the device interface documents.
 */
export const FIELD_NAMING_COMPONENTS: ReadonlySet<ComponentName> = new Set<ComponentName>(['operator']);

/** A 5xx the server chose to answer (with its message), not a failure to log. */
function isDeliberate(error: unknown): boolean {
  return error instanceof RetryLaterException || error instanceof UnavailableException;
}

/** Fastify's own errors that are the client's fault, by code. */
const FASTIFY_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, ErrorMessages.tooLarge],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, ErrorMessages.unsupportedMediaType],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Content-Length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, ErrorMessages.malformedJson],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, ErrorMessages.malformedJson],
};

/**
 * Owns every error body: `{"message": ...}` with `Content-Type: application/json`, and `field`
 * beside it for a {@link FieldException} on an operator route.
 * Unknown errors become a logged 500 `Error on server`; no stack, SQL or path is returned.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerError(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}

const errorLogger = new Logger('HttpError');

/**
 * The one error path: answers `error` as {@link HttpErrorFilter} does, for code that serves a
 * request before Nest's pipeline (a route shortcut that refuses the request).
 */
export function answerError(thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const error = outageOf(thrown) ?? thrown;
  const [status, message] = describe(error, request);
  if (status >= 500 && !isDeliberate(error)) {
    // The path only: a query string may carry a token.
    errorLogger.error({ msg: `${request.method} ${pathOf(request.url)}: ${describeCause(error)}`, reqId: request.id });
  }
  if (reply.sent) return;
  if (error instanceof HttpErrorWithHeaders) void reply.headers(error.headers);
  const field = fieldOf(error, request);
  void reply
    .status(status)
    .type('application/json; charset=utf-8')
    .send(
      field === undefined
        ? ({ message } satisfies MessageResponse)
        : {
            ...({ message, field } satisfies FieldMessageResponse),
            ...((error as FieldException).errors ? { errors: (error as FieldException).errors } : {}),
          },
    );
}

const outageLog = { logger: new Logger('Database'), lastAt: -Infinity, answered: 0 };

/**
 * The 503 for an error that says the database is unreachable ({@link isDatabaseUnreachable}):
 * `Database unavailable, retry later` with `Retry-After`, answered at once; `undefined` for any
 * other error. Logged as a warning with its cause, at most once per {@link OUTAGE_LOG_INTERVAL_MS}
 * with the number of such answers since, not once per request.
 */
function outageOf(error: unknown): RetryLaterException | undefined {
  if (!isDatabaseUnreachable(error)) return undefined;
  outageLog.answered += 1;
  const now = performance.now();
  if (now - outageLog.lastAt >= OUTAGE_LOG_INTERVAL_MS) {
    outageLog.logger.warn(`database unreachable, ${outageLog.answered} request(s) answered 503: ${errorMessage(error)}`);
    outageLog.lastAt = now;
    outageLog.answered = 0;
  }
  return new RetryLaterException(503, ErrorMessages.databaseUnavailable, DATABASE_RETRY_AFTER_SECONDS);
}

/** The field a {@link FieldException} names, when the route's component answers with it. */
function fieldOf(error: unknown, request: FastifyRequest): string | undefined {
  if (!(error instanceof FieldException)) return undefined;
  const component = routeComponent(request);
  return component !== undefined && FIELD_NAMING_COMPONENTS.has(component) ? error.field : undefined;
}

function describe(error: unknown, request: FastifyRequest): [number, string] {
  if (request.is404 && error instanceof HttpException && error.getStatus() === 404) {
    return [404, ErrorMessages.notFound];
  }
  // Fastify's own errors arrive as they are, or wrapped by Nest with the original as `cause`.
  const code = fastifyCode(error) ?? fastifyCode((error as { cause?: unknown } | null)?.cause);
  if (code) return FASTIFY_ERRORS[code];
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status >= 500 && !isDeliberate(error)) return [status, ErrorMessages.serverError];
    return [status, messageOf(error) ?? HttpStatus[status] ?? 'Error'];
  }
  return [500, ErrorMessages.serverError];
}

function fastifyCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code in FASTIFY_ERRORS ? code : undefined;
}

function messageOf(error: HttpException): string | undefined {
  const body = error.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message) && typeof message[0] === 'string') return message[0];
  return undefined;
}

function describeCause(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}

const frameworkLogger = new Logger('HttpError');

/**
 * Fastify's `frameworkErrors` hook: errors raised before routing (a malformed URL) get the same
 * `{"message": ...}` body as everything else.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
  if (status >= 500) frameworkLogger.error({ msg: `${request.method} ${pathOf(request.url)}: ${describeCause(error)}`, reqId: request.id });
  const message =
    error.code === 'FST_ERR_BAD_URL' ? 'Malformed URL' : status < 500 ? (HttpStatus[status] ?? 'Bad Request') : ErrorMessages.serverError;
  void reply
    .status(status)
    .type('application/json; charset=utf-8')
    .send({ message } satisfies MessageResponse);
}
