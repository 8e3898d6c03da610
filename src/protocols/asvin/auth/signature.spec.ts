import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { deviceSignature, signatureMatches } from './signature.js';

/**
 * docs/decisions.md §1 written out independently:
 * hex(HMAC-SHA256(key = customer key as UTF-8, message = timestamp text immediately followed by the device key)).
 */
function specSignature(customerKey: string, timestamp: string, deviceKey: string): string {
  const hmac = createHmac('sha256', Buffer.from(customerKey, 'utf8'));
  hmac.update(Buffer.from(timestamp + deviceKey, 'utf8'));
  return hmac.digest('hex');
}

/**
 * Computed once in the shell:
 * `printf '%s%s' 1700000000 mydevicekey | openssl dgst -sha256 -hmac mycustomerkey`
 */
const OPENSSL_VECTOR = 'c5269637a29a81fd2faac23e5554cdf722d521ee377033c83a866d8cfbb7e80d';

/** Flips the last hex digit to another hex digit of the same case. */
function flipLast(hex: string): string {
  const last = hex.at(-1)!;
  const other = last === '0' ? '1' : '0';
  return hex.slice(0, -1) + other;
}

describe(deviceSignature.name, () => {
  it('matches the fixed openssl vector', () => {
    assert.equal(deviceSignature('mycustomerkey', '1700000000', 'mydevicekey'), OPENSSL_VECTOR);
  });

  it('matches the docs/decisions.md §1 formula on varied inputs', () => {
    const cases: [string, string, string][] = [
      ['mycustomerkey', '1700000000', 'mydevicekey'],
      ['k', '0', 'd'],
      ['Zq3-1r9_xT0bYw8uV4a2c6e7', '1763700000', '9f86d081884c7d659a2feaa0c55ad015'],
      ['clé-ü€-🔑', '1700000123', 'device-ключ'],
      ['a'.repeat(200), '99999999999', 'b'.repeat(200)], // key longer than the SHA-256 block
    ];
    for (const [customerKey, timestamp, deviceKey] of cases) {
      assert.equal(deviceSignature(customerKey, timestamp, deviceKey), specSignature(customerKey, timestamp, deviceKey), customerKey);
    }
  });

  it('signs the timestamp digits exactly as sent (leading zeros matter)', () => {
    assert.equal(deviceSignature('ck', '01700000000', 'dk'), specSignature('ck', '01700000000', 'dk'));
    assert.notEqual(deviceSignature('ck', '01700000000', 'dk'), specSignature('ck', '1700000000', 'dk'));
  });

  it('puts the timestamp before the device key, and keys with the customer key', () => {
    const signature = deviceSignature('mycustomerkey', '1700000000', 'mydevicekey');
    assert.notEqual(signature, specSignature('mycustomerkey', 'mydevicekey', '1700000000'));
    assert.notEqual(signature, createHmac('sha256', 'mydevicekey').update('1700000000mycustomerkey').digest('hex'));
  });

  it('is lowercase hex, 64 characters', () => {
    assert.match(deviceSignature('ck', '1', 'dk'), /^[0-9a-f]{64}$/);
  });
});

describe(signatureMatches.name, () => {
  const expected = specSignature('mycustomerkey', '1700000000', 'mydevicekey');

  it('accepts the lowercase signature the field SDKs send', () => {
    assert.equal(signatureMatches(expected, OPENSSL_VECTOR), true);
  });

  it('accepts the uppercase signature of the platform docs', () => {
    assert.equal(signatureMatches(expected, OPENSSL_VECTOR.toUpperCase()), true);
  });

  it('accepts mixed case', () => {
    const mixed = [...OPENSSL_VECTOR].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    assert.equal(signatureMatches(expected, mixed), true);
  });

  it('rejects a different signature', () => {
    assert.equal(signatureMatches(expected, flipLast(OPENSSL_VECTOR)), false);
    assert.equal(signatureMatches(expected, specSignature('mycustomerkey', '1700000001', 'mydevicekey')), false);
    assert.equal(signatureMatches(expected, specSignature('othercustomerkey', '1700000000', 'mydevicekey')), false);
    assert.equal(signatureMatches(expected, '0'.repeat(64)), false);
  });

  describe('rejects wrong lengths without throwing', () => {
    for (const [label, received] of [
      ['empty', ''],
      ['63 digits', OPENSSL_VECTOR.slice(0, 63)],
      ['65 digits', `${OPENSSL_VECTOR}0`],
      ['62 digits (31 bytes)', OPENSSL_VECTOR.slice(0, 62)],
      ['66 digits (33 bytes)', `${OPENSSL_VECTOR}00`],
      ['128 digits', OPENSSL_VECTOR + OPENSSL_VECTOR],
      ['trailing newline', `${OPENSSL_VECTOR}\n`],
      ['surrounding spaces', ` ${OPENSSL_VECTOR} `],
    ] as const) {
      it(label, () => {
        assert.equal(signatureMatches(expected, received), false);
      });
    }
  });

  describe('rejects non-hex text of the right length without throwing', () => {
    for (const [label, received] of [
      ['a g in place of a digit', `${OPENSSL_VECTOR.slice(0, 63)}g`],
      ['a leading 0x', `0x${OPENSSL_VECTOR.slice(2)}`],
      ['base64 of the digest', Buffer.from(OPENSSL_VECTOR, 'hex').toString('base64').padEnd(64, '=')],
      ['64 spaces', ' '.repeat(64)],
      ['64 z', 'z'.repeat(64)],
    ] as const) {
      it(label, () => {
        assert.equal(received.length, 64);
        assert.equal(signatureMatches(expected, received), false);
      });
    }
  });
});
