import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalMac, isCanonicalMac, MAC_INPUT_PATTERN } from './mac.js';

/** Every notation docs/decisions.md §6 accepts, with the canonical form written out by hand. */
const ACCEPTED: [string, string][] = [
  // EUI-48
  ['AC:67:B2:01:02:03', 'AC:67:B2:01:02:03'],
  ['ac:67:b2:01:02:03', 'AC:67:B2:01:02:03'],
  ['Ac:67:b2:0A:0b:03', 'AC:67:B2:0A:0B:03'],
  ['ac-67-b2-01-02-03', 'AC:67:B2:01:02:03'],
  ['AC-67-B2-01-02-03', 'AC:67:B2:01:02:03'],
  ['ac67.b201.0203', 'AC:67:B2:01:02:03'],
  ['AC67.B201.0203', 'AC:67:B2:01:02:03'],
  ['ac67b2010203', 'AC:67:B2:01:02:03'],
  ['AC67B2010203', 'AC:67:B2:01:02:03'],
  ['000000000000', '00:00:00:00:00:00'],
  ['ff:ff:ff:ff:ff:ff', 'FF:FF:FF:FF:FF:FF'],
  // EUI-64
  ['ac:67:b2:ff:fe:01:02:03', 'AC:67:B2:FF:FE:01:02:03'],
  ['AC-67-B2-FF-FE-01-02-03', 'AC:67:B2:FF:FE:01:02:03'],
  ['ac67.b2ff.fe01.0203', 'AC:67:B2:FF:FE:01:02:03'],
  ['ac67b2fffe010203', 'AC:67:B2:FF:FE:01:02:03'],
];

/** Texts docs/decisions.md §6 rejects ("anything else is 400"), with the reason. */
const REJECTED: [string, string][] = [
  ['', 'empty'],
  ['AC:67-B2:01:02:03', 'mixed separators : and -'],
  ['AC-67:B2-01:02-03', 'alternating separators'],
  ['ac67.b201-0203', 'mixed separators . and -'],
  ['AC:67:B2:01:02', 'five pairs'],
  ['AC:67:B2:01:02:03:04', 'seven pairs'],
  ['AC:67:B2:01:02:03:04:05:06', 'nine pairs'],
  ['AC67B20102', 'ten hex digits'],
  ['AC67B201020', 'eleven hex digits'],
  ['AC67B20102030', 'thirteen hex digits'],
  ['AC67B2010203040', 'fifteen hex digits'],
  ['AC67B201020304', 'fourteen hex digits'],
  ['AC67B20102030405AA', 'eighteen hex digits'],
  ['AC6:7B2:010:203', '3-digit groups (12 hex digits in all)'],
  ['AC6-7B2-010-203', '3-digit dashed groups'],
  ['ac67b2.010203', '6-digit dot groups'],
  ['ac67.b201.02', 'short last dot group'],
  ['A:C:6:7:B:2:0:1:0:2:0:3', 'single-digit groups'],
  [' AC:67:B2:01:02:03', 'leading space'],
  ['AC:67:B2:01:02:03 ', 'trailing space'],
  ['AC:67:B2:01:02:03\n', 'trailing newline'],
  ['AC: 67:B2:01:02:03', 'inner space'],
  ['AC 67 B2 01 02 03', 'space-separated'],
  ['AC:67:B2:01:02:0G', 'non-hex digit G'],
  ['ZZ:67:B2:01:02:03', 'non-hex digits'],
  ['0xAC67B2010203', '0x prefix'],
  ['AC::67:B2:01:02:03', 'doubled separator'],
  [':AC:67:B2:01:02:03', 'leading separator'],
  ['AC:67:B2:01:02:03:', 'trailing separator'],
  ['AC_67_B2_01_02_03', 'underscore separator'],
  ['hello', 'a word'],
];

describe(canonicalMac.name, () => {
  for (const [text, canonical] of ACCEPTED) {
    it(`accepts ${JSON.stringify(text)} as ${canonical}`, () => {
      assert.equal(canonicalMac(text), canonical);
    });
  }

  for (const [text, reason] of REJECTED) {
    it(`rejects ${JSON.stringify(text)} (${reason})`, () => {
      assert.equal(canonicalMac(text), null);
    });
  }

  it('is idempotent: the canonical form canonicalizes to itself', () => {
    for (const [, canonical] of ACCEPTED) assert.equal(canonicalMac(canonical), canonical);
  });

  it('maps every notation of one address to the same canonical mac', () => {
    const notations = ['02:00:5e:10:00:ab', '02-00-5E-10-00-AB', '0200.5e10.00ab', '02005E1000AB'];
    assert.deepEqual(new Set(notations.map(canonicalMac)), new Set(['02:00:5E:10:00:AB']));
  });
});

describe(isCanonicalMac.name, () => {
  it('accepts uppercase colon-separated EUI-48 and EUI-64', () => {
    assert.equal(isCanonicalMac('AC:67:B2:01:02:03'), true);
    assert.equal(isCanonicalMac('AC:67:B2:FF:FE:01:02:03'), true);
    assert.equal(isCanonicalMac('00:00:00:00:00:00'), true);
  });

  it('agrees with canonicalMac on every accepted notation', () => {
    for (const [text, canonical] of ACCEPTED) {
      assert.equal(isCanonicalMac(text), text === canonical, text);
      assert.equal(isCanonicalMac(canonicalMac(text)), true, text);
    }
  });

  for (const text of [
    'ac:67:b2:01:02:03',
    'Ac:67:B2:01:02:03',
    'AC-67-B2-01-02-03',
    'AC67.B201.0203',
    'AC67B2010203',
    'AC:67:B2:01:02',
    'AC:67:B2:01:02:03:04',
    'AC:67:B2:01:02:03:04:05:06',
    'AC:67:B2:01:02:03\n',
    ' AC:67:B2:01:02:03',
    'AC:67:B2:01:02:0G',
    '',
  ]) {
    it(`rejects ${JSON.stringify(text)}`, () => {
      assert.equal(isCanonicalMac(text), false);
    });
  }

  it('rejects values that are not strings', () => {
    for (const value of [undefined, null, 0xac67b2010203, ['AC:67:B2:01:02:03'], { mac: 'AC:67:B2:01:02:03' }]) {
      assert.equal(isCanonicalMac(value), false, JSON.stringify(value));
    }
  });

  it('rejects everything canonicalMac rejects', () => {
    for (const [text] of REJECTED) assert.equal(isCanonicalMac(text), false, JSON.stringify(text));
  });
});

describe('MAC_INPUT_PATTERN', () => {
  const pattern = new RegExp(MAC_INPUT_PATTERN, 'u');

  it('matches every accepted notation and none of the rejected texts', () => {
    for (const [text] of ACCEPTED) assert.ok(pattern.test(text), JSON.stringify(text));
    for (const [text, why] of REJECTED) assert.ok(!pattern.test(text), `${JSON.stringify(text)}: ${why}`);
    for (const text of ['AC:67:B2:01:02:03:04-05', 'AC-67-B2-01-02-03-04:05', 'AC:67:B2:01:02:03:04', 'AC67B2010203AABBCC']) {
      assert.ok(!pattern.test(text), JSON.stringify(text));
    }
  });

  it('matches exactly the texts canonicalMac accepts', () => {
    // Texts of the accepted shapes with one group too few or too many, and such texts with one
    // character replaced or deleted.
    const hex = (digits: number) => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${digits}}$`));
    const groups = (count: number, digits: number, separator: string) =>
      fc.array(hex(digits), { minLength: count, maxLength: count }).map((parts) => parts.join(separator));
    const shaped = fc.oneof(
      fc.tuple(fc.integer({ min: 5, max: 9 }), fc.constantFrom(':', '-')).chain(([count, separator]) => groups(count, 2, separator)),
      fc.integer({ min: 2, max: 5 }).chain((count) => groups(count, 4, '.')),
      fc.integer({ min: 10, max: 18 }).chain((digits) => hex(digits)),
    );
    const edited = fc.tuple(shaped, fc.nat(), fc.constantFrom('', ':', '-', '.', 'g', 'A', '0', ' ')).map(([text, index, replacement]) => {
      const at = index % (text.length + 1);
      return text.slice(0, at) + replacement + text.slice(at + 1);
    });
    fc.assert(
      fc.property(fc.oneof(shaped, edited, fc.string()), (text) => pattern.test(text) === (canonicalMac(text) !== null)),
      { numRuns: 2000 },
    );
  });
});
