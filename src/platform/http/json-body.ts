import { BadRequestException } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { JsonTextMessages, readJsonText } from '#src/platform/common/json-text.js';
import { FieldException } from './http-error.filter.js';

/**
 * Parsed body of a request whose `application/json` body was refused ({@link readJsonText}: not
 * JSON, nested too deep, a prototype-poisoning key, text no engine stores): its 400 text, and the
 * field it names. The parser hands this marker on instead of failing, so guards (the login rate
 * limit, a protocol's credentials) still answer first and the validation pipe or the body schema
 * answers 400 (docs/decisions.md §3, §4: every login answer carries rate-limit headers).
 */
export class RefusedJson {
  constructor(
    readonly message: string,
    readonly field?: string,
  ) {}
}

/** The 400 of a body the JSON parser refused: a {@link FieldException} when it names a field. */
export function refusedBody(refused: RefusedJson): BadRequestException {
  return refused.field === undefined ? new BadRequestException(refused.message) : new FieldException(refused.field, refused.message);
}

/** The {@link RefusedJson} of a body that is not JSON. */
export const MALFORMED_JSON = new RefusedJson(JsonTextMessages.malformed);

/** The JSON text a parsed body object was read from (see {@link jsonNumberLiteral}). */
const SOURCE = Symbol('JSON source');

/** Route config key of a route that repairs raw control characters (see {@link RepairsControlCharacters}). */
const REPAIR_CONTROL_CHARACTERS = 'firmledgerRepairControlCharacters';

/**
 * Marks a route whose clients are known to send JSON with raw control characters (a line feed)
 * inside strings, such as SWUpdate's DDI feedback (docs/decisions.md §12): they are escaped where
 * they stand inside a string, then the body is read as strictly as any other; what is still
 * refused is a 400 like on every route.
 */
export const RepairsControlCharacters = (): MethodDecorator => RouteConfig({ [REPAIR_CONTROL_CHARACTERS]: true });

/** Body limit of device endpoints, bytes (docs/decisions.md §3). */
export const DEVICE_BODY_LIMIT_BYTES = 16 * 1024;

/** Route config key of a route's own JSON body limit (see {@link JsonBodyLimit}). */
const BODY_LIMIT = 'firmledgerBodyLimit';

/**
 * Gives a route a JSON body limit of its own instead of {@link DEVICE_BODY_LIMIT_BYTES}, for the
 * few device bodies that are larger by nature (a Mender client's deployment log,
 * docs/decisions.md §13).
 */
export const JsonBodyLimit = (bytes: number): MethodDecorator => RouteConfig({ [BODY_LIMIT]: bytes });

/**
 * Replaces fastify's parsers with one for `application/json` (any charset parameter): other
 * media types answer 415. Every body is read by {@link readJsonText} with its limits; a refused
 * one reaches the route as a {@link RefusedJson}.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: DEVICE_BODY_LIMIT_BYTES }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    const read = readJsonText(text, { repairControlCharacters: repairsControlCharacters(request) });
    if ('refused' in read)
      return done(null, read.refused === JsonTextMessages.malformed ? MALFORMED_JSON : new RefusedJson(read.refused, read.field));
    const parsed = read.value;
    // Non-enumerable: validation, logs and serializers never see it.
    if (typeof parsed === 'object' && parsed !== null) Object.defineProperty(parsed, SOURCE, { value: text });
    done(null, parsed);
  });
  fastify.addHook('onRoute', (route) => {
    const limit = (route.config as Record<string, unknown> | undefined)?.[BODY_LIMIT];
    if (typeof limit === 'number') route.bodyLimit = limit;
  });
}

function repairsControlCharacters(request: FastifyRequest): boolean {
  return (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[REPAIR_CONTROL_CHARACTERS] === true;
}

/**
 * The exact text a JSON body object or array was parsed from (its bytes as UTF-8, for a signature
 * over them: a Mender client signs its authentication request's bytes, docs/decisions.md §13);
 * `undefined` when `body` was not parsed by {@link installJsonBodyParser}.
 */
export function jsonSourceText(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? (body as { [SOURCE]?: string })[SOURCE] : undefined;
}

/**
 * The number literal a top-level member of a parsed JSON body object was written as (`1700000000`,
 * `1700000000.0`, `17e8`, `-0`), where parsing loses the difference; `undefined` when the member is
 * not a number, or `body` was not parsed by {@link installJsonBodyParser}. The last of duplicate
 * members counts, as in `JSON.parse`.
 */
export function jsonNumberLiteral(body: object, member: string): string | undefined {
  const source = (body as { [SOURCE]?: string })[SOURCE];
  return source === undefined ? undefined : topLevelNumberLiteral(source, member);
}

const NUMBER_LITERAL = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Scans valid JSON text for the number literal of a member of its top-level object. */
function topLevelNumberLiteral(source: string, member: string): string | undefined {
  let depth = 0;
  let expectName = false; // inside the top-level object, after `{` or `,`: a member name comes next
  let name: string | undefined; // the top-level member whose value comes next
  let found: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '"') {
      let end = i + 1;
      while (source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      if (depth === 1) name = expectName ? (JSON.parse(source.slice(i, end + 1)) as string) : undefined;
      expectName = false;
      i = end;
    } else if (char === '{' || char === '[') {
      if (depth === 1) name = undefined;
      depth++;
      expectName = depth === 1 && char === '{';
    } else if (char === '}' || char === ']') {
      depth--;
    } else if (char === ',') {
      if (depth === 1) [expectName, name] = [true, undefined];
    } else if (depth === 1 && name !== undefined && (char === '-' || (char >= '0' && char <= '9'))) {
      NUMBER_LITERAL.lastIndex = i;
      const literal = NUMBER_LITERAL.exec(source)?.[0] ?? char;
      if (name === member) found = literal;
      name = undefined;
      i += literal.length - 1;
    }
  }
  return found;
}
