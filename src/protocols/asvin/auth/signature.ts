import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The device signature of the field SDKs (docs/decisions.md §1):
 * `hex(HMAC-SHA256(key = customer key (UTF-8), message = timestamp digits + device key))`.
 * @param timestamp the decimal digits exactly as the device sent them.
 * @returns lowercase hex, 64 characters.
 */
export function deviceSignature(customerKey: string, timestamp: string, deviceKey: string): string {
  return createHmac('sha256', customerKey).update(`${timestamp}${deviceKey}`, 'utf8').digest('hex');
}

const HEX_64 = /^[0-9a-f]{64}$/i;

/**
 * Whether a received signature equals the expected one; lower- and uppercase hex are both
 * accepted (docs/decisions.md §1). The comparison is constant-time.
 */
export function signatureMatches(expectedHex: string, receivedHex: string): boolean {
  if (!HEX_64.test(receivedHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(receivedHex, 'hex'));
}
