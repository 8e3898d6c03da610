import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoTime } from './iso-time.js';

describe(parseIsoTime.name, () => {
  it('reads a date as midnight UTC', () => {
    assert.equal(parseIsoTime('2026-11-21'), Date.UTC(2026, 10, 21));
  });

  it('reads date-times with Z, with an offset, and without one (as UTC)', () => {
    assert.equal(parseIsoTime('2026-11-21T10:00:00Z'), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseIsoTime('2026-11-21T10:00:00.250Z'), Date.UTC(2026, 10, 21, 10, 0, 0, 250));
    assert.equal(parseIsoTime('2026-11-21T12:00:00+02:00'), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseIsoTime('2026-11-21T05:30-0430'), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseIsoTime('2026-11-21T10:00'), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseIsoTime('2026-11-21T10:00:00'), Date.UTC(2026, 10, 21, 10));
  });

  it('refuses dates that do not exist instead of rolling them over', () => {
    for (const text of ['2026-02-30', '2026-02-29T00:00:00Z', '2026-13-01', '2026-00-10']) assert.equal(parseIsoTime(text), null, text);
    assert.equal(parseIsoTime('2028-02-29'), Date.UTC(2028, 1, 29));
  });

  it('refuses times and offsets out of range', () => {
    for (const text of ['2026-11-21T24:00:00Z', '2026-11-21T10:60:00Z', '2026-11-21T10:00:60Z', '2026-11-21T10:00:00+24:00']) {
      assert.equal(parseIsoTime(text), null, text);
    }
  });

  it('refuses other notations', () => {
    for (const text of ['yesterday', '1763700000', '2026-11-21 10:00:00', '21.11.2026', '2026-W47', '2026-325', '', '2026-11-21T10Z']) {
      assert.equal(parseIsoTime(text), null, text);
    }
  });
});
