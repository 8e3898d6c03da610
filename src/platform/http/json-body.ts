import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJsonParse from 'secure-json-parse';

/**
 * Parsed body of a request whose `application/json` body is not valid JSON. The parser hands
 * this marker on instead of failing, so guards (the login rate limit) still run and the
 * validation pipe answers 400 (docs/decisions.md §3, §4: every login answer carries rate-limit headers).
 */
export const MALFORMED_JSON = Symbol('malformed JSON');

/** The JSON text a parsed body object was read from (see {@link jsonNumberLiteral}). */
const SOURCE = Symbol('JSON source');

/** Route config key that marks a route as taking JSON leniently (see {@link LenientJsonBody}). */
const LENIENT_JSON = 'firmledgerLenientJson';

/**
 * Marks a route whose clients are known to send JSON with raw control characters (a line feed)
 * inside strings, such as SWUpdate's DDI feedback (docs/decisions.md §12): such a body is parsed
 * with those characters escaped, and a body that is still not JSON reaches the handler as
 * {@link UnparsedJson} instead of a 400, for it to read what it can.
 */
export const LenientJsonBody = (): MethodDecorator => RouteConfig({ [LENIENT_JSON]: true });

/** The text of an `application/json` body of a {@link LenientJsonBody} route that is not JSON even leniently. */
export class UnparsedJson {
  constructor(readonly text: string) {}
}

/**
 * Parses JSON text whose strings may hold raw control characters (U+0000 to U+001F), which
 * `JSON.parse` refuses: they are escaped (`\n`, `\u0001`) where they stand inside a string, then
 * the text is parsed as usual, prototype-poisoning keys refused.
 * @throws SyntaxError when the text is not JSON even so.
 */
export function parseLenientJson(text: string): unknown {
  let repaired = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') {
        repaired += char + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (char === '"') inString = false;
      const code = char.charCodeAt(0);
      repaired += code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : char;
      continue;
    }
    if (char === '"') inString = true;
    repaired += char;
  }
  return secureJsonParse.parse(repaired, undefined, { protoAction: 'error', constructorAction: 'error' });
}

/** Body limit of device endpoints, bytes (docs/decisions.md §3). */
export const DEVICE_BODY_LIMIT_BYTES = 16 * 1024;

/** Route config key of a route's own JSON body limit (see {@link JsonBodyLimit}). */
const BODY_LIMIT = 'firmledgerBodyLimit';

/**
 * Gives a route a JSON body limit of its own instead of {@link DEVICE_BODY_LIMIT_BYTES}, for the
 * few device bodies that are larger by nature (a Mender client's deployment log,
 * docs/decisions.md §13). Not combinable with {@link LenientJsonBody} on one route.
 */
export const JsonBodyLimit = (bytes: number): MethodDecorator => RouteConfig({ [BODY_LIMIT]: bytes });

/**
 * Replaces fastify's parsers with one for `application/json` (any charset parameter): other
 * media types answer 415. Prototype-poisoning keys are rejected like malformed JSON.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: DEVICE_BODY_LIMIT_BYTES }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      if (!isLenientRoute(request)) return done(null, MALFORMED_JSON);
      try {
        parsed = parseLenientJson(text);
      } catch {
        return done(null, new UnparsedJson(text));
      }
    }
    // Non-enumerable: validation, logs and serializers never see it.
    if (typeof parsed === 'object' && parsed !== null) Object.defineProperty(parsed, SOURCE, { value: text });
    done(null, parsed);
  });
  fastify.addHook('onRoute', (route) => {
    const limit = (route.config as Record<string, unknown> | undefined)?.[BODY_LIMIT];
    if (typeof limit === 'number') route.bodyLimit = limit;
  });
}

function isLenientRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[LENIENT_JSON] === true;
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
