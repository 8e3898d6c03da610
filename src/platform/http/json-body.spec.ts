import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { JsonTextMessages } from '#src/platform/common/json-text.js';
import { installJsonBodyParser, jsonNumberLiteral, MALFORMED_JSON, RefusedJson } from './json-body.js';

/** Parses `text` with the server's body parser, as a request body. */
async function parse(text: string): Promise<unknown> {
  const fastify = Fastify();
  installJsonBodyParser(fastify);
  let body: unknown;
  fastify.post('/', (request, reply) => {
    body = request.body;
    void reply.send({});
  });
  await fastify.inject({ method: 'POST', url: '/', payload: text, headers: { 'content-type': 'application/json' } });
  await fastify.close();
  return body;
}

describe(jsonNumberLiteral.name, () => {
  it('gives a top-level number member as it was written', async () => {
    const cases: [string, string | undefined][] = [
      ['{"timestamp":1700000000}', '1700000000'],
      ['{"timestamp": 1700000000.0 ,"x":1}', '1700000000.0'],
      ['{ "timestamp" : 17e8 }', '17e8'],
      ['{"timestamp":-0}', '-0'],
      ['{"time\\u0073tamp":1.5E+3}', '1.5E+3'],
      ['{"timestamp":"1700000000"}', undefined],
      ['{"timestamp":null}', undefined],
      ['{"a":{"timestamp":1.0},"timestamp":7}', '7'],
      ['{"a":[1.0,{"timestamp":2.0}],"b":"\\"timestamp\\":3.0"}', undefined],
      ['{"timestamp":1.0,"timestamp":2}', '2'],
    ];
    for (const [text, literal] of cases) {
      const body = (await parse(text)) as object;
      assert.equal(jsonNumberLiteral(body, 'timestamp'), literal, text);
    }
  });

  it('keeps the source out of the parsed object: it is not enumerable and not serialized', async () => {
    const body = await parse('{"timestamp":1.0}');
    assert.deepEqual(Object.keys(body as object), ['timestamp']);
    assert.equal(JSON.stringify(body), '{"timestamp":1}');
  });

  it('knows nothing of objects the parser did not make', () => {
    assert.equal(jsonNumberLiteral({ timestamp: 1 }, 'timestamp'), undefined);
  });

  it('hands malformed JSON on as the marker', async () => {
    assert.equal(await parse('{"timestamp":'), MALFORMED_JSON);
  });

  it('hands a body refused for its nesting, a prototype key or unstorable text on as a marker with its message', async () => {
    assert.deepEqual(await parse(`${'['.repeat(5000)}${']'.repeat(5000)}`), new RefusedJson(JsonTextMessages.tooDeep));
    assert.deepEqual(await parse('{"__proto__":{"x":1}}'), new RefusedJson(JsonTextMessages.prototypeKey));
    const refused = await parse('{"name":"\\ud800"}');
    assert.ok(refused instanceof RefusedJson);
    assert.equal(refused.field, 'name');
  });
});
