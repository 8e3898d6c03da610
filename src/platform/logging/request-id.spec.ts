import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { requestIdFor } from './request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const withHeader = (value?: string | string[]) => ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as IncomingMessage;

describe(requestIdFor.name, () => {
  it('keeps a sane incoming id', () => {
    assert.equal(requestIdFor(withHeader('edge-01.req_42')), 'edge-01.req_42');
    assert.equal(requestIdFor(withHeader('a'.repeat(128))), 'a'.repeat(128));
  });

  it('replaces a missing, long, or non-token id by a random UUID', () => {
    for (const value of [undefined, '', 'a'.repeat(129), 'two words', 'x\ny', '{"level":"fatal"}', 'ä', ['a', 'b']]) {
      assert.match(requestIdFor(withHeader(value)), UUID, JSON.stringify(value));
    }
    assert.notEqual(requestIdFor(withHeader()), requestIdFor(withHeader()));
  });
});
