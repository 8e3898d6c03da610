import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapeControlCharacters, JSON_MAX_DEPTH, JsonTextMessages, nestsDeeperThan, readJsonText } from './json-text.js';
import { unstorableTextMessage } from './input-rules.js';

/** JSON text of `depth` nested arrays and objects around `1`. */
function nested(depth: number): string {
  let text = '1';
  for (let i = 0; i < depth; i++) text = i % 2 === 0 ? `[${text}]` : `{"a":${text}}`;
  return text;
}

describe(readJsonText.name, () => {
  it('reads JSON as JSON.parse does, up to the nesting limit', () => {
    for (const text of ['{"a":[1,"x",{"b":null}]}', '[]', '"text"', '3', '{"a":"🚀 \\ud83d\\ude80"}', nested(JSON_MAX_DEPTH)]) {
      assert.deepEqual(readJsonText(text), { value: JSON.parse(text) as unknown }, text);
    }
  });

  it('refuses nesting past the limit, however deep, without overflowing the stack', () => {
    for (const depth of [JSON_MAX_DEPTH + 1, 10_000, 1_000_000]) {
      assert.deepEqual(readJsonText(nested(depth)), { refused: JsonTextMessages.tooDeep }, String(depth));
    }
    assert.deepEqual(readJsonText('['.repeat(100_000)), { refused: JsonTextMessages.tooDeep });
  });

  it('counts no bracket inside a string', () => {
    const text = `{"a":"${'[{'.repeat(100)}\\"[{","b":[[1]]}`;
    assert.deepEqual(readJsonText(text), { value: JSON.parse(text) as unknown });
  });

  it('refuses prototype-poisoning keys, escaped or not, anywhere', () => {
    for (const text of [
      '{"__proto__":{"x":1}}',
      '{"status":{"__proto__":{"execution":"closed","result":{"finished":"success"}}}}',
      '{"a":[{"\\u005f_proto__":1}]}',
      '{"constructor":{"prototype":{"x":1}}}',
    ]) {
      assert.deepEqual(readJsonText(text), { refused: JsonTextMessages.prototypeKey }, text);
    }
    assert.deepEqual(readJsonText('{"constructor":"x"}'), { value: { constructor: 'x' } });
  });

  it('refuses a lone surrogate or a NUL in a value or a key, naming where it is', () => {
    assert.deepEqual(readJsonText('{"id_data":"\\ud800"}'), { refused: unstorableTextMessage('id_data'), field: 'id_data' });
    assert.deepEqual(readJsonText('{"status":{"details":["ok","x\\udc00y"]}}'), {
      refused: unstorableTextMessage('status.details'),
      field: 'status.details',
    });
    assert.deepEqual(readJsonText('{"data":{"\\udbff":"v"}}'), { refused: unstorableTextMessage('data keys'), field: 'data keys' });
    assert.deepEqual(readJsonText('"a\\u0000"'), { refused: unstorableTextMessage('body') });
    // An escaped backslash before `u` is no escape of a code unit.
    assert.deepEqual(readJsonText('{"a":"\\\\ud800"}'), { value: { a: '\\ud800' } });
  });

  it('refuses what is not JSON, and repairs only raw control characters inside strings when asked', () => {
    for (const text of ['{"a":', '{"a": "x\ny"}', "{'a': 1}", '{"a": 1,}']) {
      assert.deepEqual(readJsonText(text), { refused: JsonTextMessages.malformed }, text);
    }
    assert.deepEqual(readJsonText('{"a": "x\ny\tz",\n"b": "q\\"\\n"}', { repairControlCharacters: true }), {
      value: { a: 'x\ny\tz', b: 'q"\n' },
    });
    // Repaired, then read as strictly: a raw NUL is text no engine stores, an unescaped quote still no JSON.
    assert.deepEqual(readJsonText('{"a": "x\u0000"}', { repairControlCharacters: true }), {
      refused: unstorableTextMessage('a'),
      field: 'a',
    });
    assert.deepEqual(readJsonText('{"a": "say "hi""}', { repairControlCharacters: true }), { refused: JsonTextMessages.malformed });
    assert.deepEqual(readJsonText('{"__proto__": {"a": "x\ny"}}', { repairControlCharacters: true }), {
      refused: JsonTextMessages.prototypeKey,
    });
  });
});

describe(escapeControlCharacters.name, () => {
  it('escapes raw control characters inside strings only, and keeps escapes as they are', () => {
    assert.equal(escapeControlCharacters('{\n"a": "x\ny\u0001", "b": "q\\"\n"}'), '{\n"a": "x\\u000ay\\u0001", "b": "q\\"\\u000a"}');
    assert.equal(escapeControlCharacters('{"a": 1}'), '{"a": 1}');
  });
});

describe(nestsDeeperThan.name, () => {
  it('is whether arrays and objects open more than the limit at once', () => {
    assert.equal(nestsDeeperThan('[[1],[2],[3]]', 2), false);
    assert.equal(nestsDeeperThan('[[[1]]]', 2), true);
    assert.equal(nestsDeeperThan('{"a":"[[[["}', 2), false);
  });
});
