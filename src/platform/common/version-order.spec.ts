import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersions } from './version-order.js';

/** Asserts `a` orders before `b`, and the reverse comparison agrees. */
function assertBefore(a: string, b: string): void {
  assert.ok(compareVersions(a, b) < 0, `${a} should order before ${b} (got ${compareVersions(a, b)})`);
  assert.ok(compareVersions(b, a) > 0, `${b} should order after ${a} (got ${compareVersions(b, a)})`);
}

/** Asserts `a` and `b` order the same, both ways round. */
function assertSame(a: string, b: string): void {
  assert.equal(compareVersions(a, b), 0, `${a} should equal ${b}`);
  assert.equal(compareVersions(b, a), 0, `${b} should equal ${a}`);
}

describe(compareVersions.name, () => {
  describe('numeric dot segments (docs/decisions.md §8)', () => {
    it('orders 1.10 after 1.9 (numbers, not text)', () => assertBefore('1.9', '1.10'));
    it('orders 2.0 after 1.99.99', () => assertBefore('1.99.99', '2.0'));
    it('orders 1.0.10 after 1.0.9', () => assertBefore('1.0.9', '1.0.10'));
    it('orders 10.0.0 after 9.9.9', () => assertBefore('9.9.9', '10.0.0'));
    it('orders by the first differing segment', () => {
      assertBefore('1.2.3', '1.2.4');
      assertBefore('1.2.3', '1.3.0');
      assertBefore('0.9.9', '1.0.0');
    });
    it('compares numbers beyond 2^53 exactly', () => {
      assertBefore('1.9007199254740993', '1.9007199254740994');
      assertBefore('1.99999999999999999998', '1.99999999999999999999');
    });
    it('compares a short number with a long one by value', () => {
      assertBefore('1.999999999999999', '1.1000000000000000');
      assertSame('1.0000000000000000000007', '1.7');
    });
    it('compares segments with leading zeros as numbers', () => {
      assertSame('1.01', '1.1');
      assertBefore('1.09', '1.10');
    });
  });

  describe('equal versions', () => {
    it('returns 0 for identical versions', () => {
      for (const v of ['1', '1.0', '1.2.3', '10.20.30', '1.0.0-rc1', 'beta']) assertSame(v, v);
    });
    it('counts missing segments as 0: 1.2 = 1.2.0 = 1.2.0.0', () => {
      assertSame('1.2', '1.2.0');
      assertSame('1.2', '1.2.0.0');
      assertSame('1', '1.0.0');
    });
    it('still orders 1.2 before 1.2.1 (missing 0 < 1)', () => assertBefore('1.2', '1.2.1'));
  });

  describe('a leading v is ignored', () => {
    it('v1.2.3 = 1.2.3', () => assertSame('v1.2.3', '1.2.3'));
    it('v1.10 orders after 1.9', () => assertBefore('1.9', 'v1.10'));
    it('v2 orders after v1.99', () => assertBefore('v1.99', 'v2'));
  });

  describe('numeric head with a suffix', () => {
    it('3-rc1 orders before 3', () => assertBefore('3-rc1', '3'));
    it('3-rc1 orders after 2', () => assertBefore('2', '3-rc1'));
    it('1.0.0-rc1 orders before 1.0.0 and after 0.9.9', () => {
      assertBefore('1.0.0-rc1', '1.0.0');
      assertBefore('0.9.9', '1.0.0-rc1');
    });
    it('2.0-beta orders after 1.99 (the number decides first)', () => assertBefore('1.99', '2.0-beta'));
    it('3-rc10 orders after 2-rc99 (number first)', () => assertBefore('2-rc99', '3-rc10'));
    it('same number: suffixes compare as text', () => {
      assertBefore('3-rc1', '3-rc2');
      assertBefore('3-alpha', '3-beta');
    });
  });

  describe('other text compares by code points', () => {
    it('alpha < beta', () => assertBefore('1.alpha', '1.beta'));
    it('is case-sensitive by code point: B (U+0042) < a (U+0061)', () => assertBefore('1.B', '1.a'));
    it('equal text segments are equal', () => assertSame('1.beta.2', '1.beta.2'));
    it('uses code points, not UTF-16 code units: U+FF5E < U+1F600', () => {
      // U+1F600 is the surrogate pair D83D DE00; by code units it would sort before U+FF5E.
      assertBefore('1.\uFF5E', '1.\u{1F600}');
    });
  });

  it('is antisymmetric over a set of versions', () => {
    const versions = ['1', '1.0.1', '1.9', '1.10', '2.0', '2.0-rc1', 'v2.1', '3-rc1', '3', '1.beta'];
    for (const a of versions) {
      for (const b of versions) {
        assert.equal(Math.sign(compareVersions(a, b)) + Math.sign(compareVersions(b, a)), 0, `${a} vs ${b}`);
      }
    }
  });

  it('sorts a shuffled list into the documented order', () => {
    const ordered = ['0.9.9', '1.0.0-rc1', '1.0.0', '1.0.9', '1.0.10', '1.9', '1.10', '1.99.99', '2.0'];
    const shuffled = ['1.10', '2.0', '1.0.0', '0.9.9', '1.99.99', '1.0.10', '1.9', '1.0.0-rc1', '1.0.9'];
    assert.deepEqual([...shuffled].sort(compareVersions), ordered);
  });
});
