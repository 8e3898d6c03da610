/**
 * Hardware addresses (docs/decisions.md §6): EUI-48 or EUI-64, written as `:`- or `-`-separated
 * pairs, `.`-separated groups of four, or bare hex, in any case.
 */
const PAIRS = /^[0-9a-f]{2}(?:([:-])[0-9a-f]{2})(?:\1[0-9a-f]{2})*$/i;
const QUADS = /^[0-9a-f]{4}(?:\.[0-9a-f]{4})+$/i;
const BARE = /^[0-9a-f]+$/i;
const CANONICAL = /^[0-9A-F]{2}(?::[0-9A-F]{2}){5}(?:(?::[0-9A-F]{2}){2})?$/;

/**
 * Canonical form of a hardware address: uppercase, colon-separated pairs
 * (`ac-67-b2-01-02-03` → `AC:67:B2:01:02:03`).
 * @returns the canonical mac, or `null` when the text is not an EUI-48/EUI-64 address.
 */
export function canonicalMac(text: string): string | null {
  if (CANONICAL.test(text)) return text;
  if (!(PAIRS.test(text) || QUADS.test(text) || BARE.test(text))) return null;
  const hex = text.replace(/[:.-]/g, '').toUpperCase();
  if (hex.length !== 12 && hex.length !== 16) return null;
  return hex.match(/../g)!.join(':');
}

/** Whether text is already a canonical mac. */
export function isCanonicalMac(text: unknown): text is string {
  return typeof text === 'string' && CANONICAL.test(text);
}

/** 400 text for a mac that is not a hardware address (docs/decisions.md §6). */
export const INVALID_MAC = 'mac must be a hardware address (EUI-48 or EUI-64), e.g. AC:67:B2:01:02:03';
