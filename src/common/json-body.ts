import type { FastifyInstance } from 'fastify';
import secureJsonParse from 'secure-json-parse';

/**
 * Parsed body of a request whose `application/json` body is not valid JSON. The parser hands
 * this marker on instead of failing, so guards (the login rate limit) still run and the
 * validation pipe answers 400 (CONTRACT.md §3, §4: every login answer carries rate-limit headers).
 */
export const MALFORMED_JSON = Symbol('malformed JSON');

/** Body limit of device endpoints, bytes (CONTRACT.md §3). */
export const DEVICE_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Replaces fastify's parsers with one for `application/json` (any charset parameter): other
 * media types answer 415. Prototype-poisoning keys are rejected like malformed JSON.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: DEVICE_BODY_LIMIT_BYTES }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(null, MALFORMED_JSON);
    }
  });
}
