import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStorableText, isStoredId, MAX_ID, unstorableField } from './input-rules.js';

describe(isStorableText.name, () => {
  it('accepts any valid Unicode text, surrogate pairs included', () => {
    for (const text of ['', 'pump-7', 'Ünïcødé', '设备-東京', '🚀 rocket', '\t\n']) assert.equal(isStorableText(text), true, text);
  });

  it('refuses a NUL anywhere and a lone surrogate of either half', () => {
    for (const text of ['\u0000', 'a\u0000', '\ud800', 'x\udc00y', '🚀\ud83d', '\udc00\ud800']) {
      assert.equal(isStorableText(text), false, JSON.stringify(text));
    }
  });
});

describe(unstorableField.name, () => {
  it('names the field holding the first unstorable text, inside arrays and objects too', () => {
    assert.equal(unstorableField('ok', 'name'), undefined);
    assert.equal(unstorableField('a\u0000', 'name'), 'name');
    assert.equal(unstorableField(['AC:67:B2:01:02:03', '\ud800'], 'macs'), 'macs');
    assert.equal(unstorableField({ name: 'ok', macs: ['x', 'y\u0000'] }, ''), 'macs');
    assert.equal(unstorableField({ page: 1, filter: { group: '\udfff' } }, ''), 'filter.group');
    assert.equal(unstorableField({ page: 1, per_page: 50, group: undefined }, ''), undefined);
  });

  it('names the first in document order, and keys only when asked', () => {
    assert.equal(unstorableField({ a: [{ b: 'ok' }, { c: '\ud800' }], d: '\u0000' }, ''), 'a.c');
    assert.equal(unstorableField({ status: { '\udc00': 'x' } }, ''), undefined);
    assert.equal(unstorableField({ status: { '\udc00': 'x' } }, '', { keys: true }), 'status keys');
    assert.equal(unstorableField({ 'a\u0000': 1 }, '', { keys: true }), 'body keys');
  });

  it('walks any nesting without overflowing the stack', () => {
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { x: deep };
    assert.equal(unstorableField(deep, '')?.startsWith('x'), true);
  });
});

describe(isStoredId.name, () => {
  it('is true from 1 to 2,147,483,647 only', () => {
    for (const id of [1, 42, MAX_ID]) assert.equal(isStoredId(id), true, String(id));
    for (const id of [0, -1, 1.5, MAX_ID + 1, 2 ** 53, 1e300, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.equal(isStoredId(id), false, String(id));
    }
  });
});
