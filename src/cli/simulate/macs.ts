/** Three bytes of a simulated device's mac, `:`- or `-`-separated or bare hex, any case. */
const PREFIX = /^([0-9a-f]{2})([:-]?)([0-9a-f]{2})\2([0-9a-f]{2})$/i;

/** Most devices one prefix can address: the suffix is three bytes and suffix 0 is unused. */
export const MAX_SIMULATED_DEVICES = 0xff_ff_ff;

/**
 * Canonical form of a 3-byte mac prefix (`02-f1-ed` → `02:F1:ED`).
 * @throws RangeError when the text is not three hex bytes.
 */
export function canonicalMacPrefix(prefix: string): string {
  const m = PREFIX.exec(prefix.trim());
  if (!m) throw new RangeError(`mac prefix must be three hex bytes such as 02:F1:ED, got ${JSON.stringify(prefix)}`);
  return [m[1], m[3], m[4]].join(':').toUpperCase();
}

/**
 * The mac of simulated device `index` (0-based): the canonical prefix followed by the three
 * bytes of `index + 1`, so device 1 is `<prefix>:00:00:01`. Uppercase, colon-separated.
 */
export function simulatedMac(canonicalPrefix: string, index: number): string {
  const n = index + 1;
  const suffix = [(n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].map((byte) => byte.toString(16).toUpperCase().padStart(2, '0')).join(':');
  return `${canonicalPrefix}:${suffix}`;
}

/**
 * The macs `simulate()` uses for `count` devices with `prefix`, in device order, so operators
 * can put them in a rollout group before the run. Canonical (uppercase, colon-separated) and distinct.
 * @throws RangeError for a malformed prefix or a count outside 0..16 777 215.
 */
export function simulatedMacs(prefix: string, count: number): string[] {
  const canonical = canonicalMacPrefix(prefix);
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_SIMULATED_DEVICES) {
    throw new RangeError(`device count must be an integer from 0 to ${MAX_SIMULATED_DEVICES}, got ${count}`);
  }
  return Array.from({ length: count }, (_, i) => simulatedMac(canonical, i));
}
