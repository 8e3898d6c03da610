import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatUtc, parseUtc } from './clock.js';

/** Epoch seconds computed once with `date -u -d '<text>' +%s`, paired with the text. */
const KNOWN: [string, number][] = [
  ['1970-01-01 00:00:00', 0],
  ['2023-11-14 22:13:20', 1_700_000_000_000],
  ['2000-02-29 00:00:00', 951_782_400_000],
  ['2024-02-29 12:34:56', 1_709_210_096_000],
];

describe(formatUtc.name, () => {
  for (const [text, ms] of KNOWN) {
    it(`formats ${ms} as ${text}`, () => {
      assert.equal(formatUtc(ms), text);
    });
  }

  it('is UTC, whatever the local time zone', () => {
    // 23:30 UTC on New Year's Eve: a local-time formatter east of UTC would give the next year.
    assert.equal(formatUtc(1_704_065_400_000), '2023-12-31 23:30:00');
  });

  it('drops milliseconds (the format has whole seconds)', () => {
    assert.equal(formatUtc(1_700_000_000_123), '2023-11-14 22:13:20');
  });

  it('writes the documented shape YYYY-MM-DD HH:MM:SS', () => {
    assert.match(formatUtc(1_234_567_890_000), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
});

describe(parseUtc.name, () => {
  for (const [text, ms] of KNOWN) {
    it(`parses ${text} as ${ms}`, () => {
      assert.equal(parseUtc(text), ms);
    });
  }

  it('returns 0 (not null) for the epoch itself', () => {
    assert.strictEqual(parseUtc('1970-01-01 00:00:00'), 0);
  });

  it('round-trips with formatUtc', () => {
    for (const text of [
      '2020-01-01 00:00:00',
      '2026-12-31 23:59:59',
      '2038-01-19 03:14:08',
      '1999-12-31 23:59:59',
      '2400-02-29 06:07:08',
    ]) {
      const ms = parseUtc(text);
      assert.notEqual(ms, null, text);
      assert.equal(formatUtc(ms!), text);
    }
    for (const ms of [0, 86_400_000, 1_700_000_000_000, 4_102_444_799_000]) {
      assert.equal(parseUtc(formatUtc(ms)), ms);
    }
  });

  describe('rejects dates and times that do not exist', () => {
    for (const text of [
      '2026-02-30 00:00:00',
      '2026-02-29 00:00:00', // 2026 is not a leap year
      '2100-02-29 00:00:00', // divisible by 100, not by 400
      '2026-04-31 00:00:00',
      '2026-13-01 00:00:00',
      '2026-00-10 00:00:00',
      '2026-01-00 00:00:00',
      '2026-01-32 00:00:00',
      '2026-01-01 24:00:00',
      '2026-01-01 23:60:00',
      '2026-01-01 23:59:60',
      '2026-01-01 99:99:99',
    ]) {
      it(JSON.stringify(text), () => {
        assert.equal(parseUtc(text), null);
      });
    }
  });

  describe('rejects other formats', () => {
    for (const text of [
      '',
      'tomorrow',
      'now',
      '2026-01-01',
      '2026-01-01 00:00',
      '00:00:00',
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00Z',
      '2026-01-01 00:00:00Z',
      '2026-01-01 00:00:00+01:00',
      '2026-01-01 00:00:00.000',
      '2026-1-1 00:00:00',
      '2026-01-01 0:00:00',
      '26-01-01 00:00:00',
      '02026-01-01 00:00:00',
      '2026/01/01 00:00:00',
      '01-01-2026 00:00:00',
      '2026-01-01  00:00:00',
      ' 2026-01-01 00:00:00',
      '2026-01-01 00:00:00 ',
      '2026-01-01 00:00:00\n',
      '\u0662\u0660\u0662\u0666-01-01 00:00:00', // Arabic-Indic digits
      '1700000000',
    ]) {
      it(JSON.stringify(text), () => {
        assert.equal(parseUtc(text), null);
      });
    }
  });
});
