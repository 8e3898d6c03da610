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

const HEX2 = '[0-9A-Fa-f]{2}';
const HEX4 = '[0-9A-Fa-f]{4}';

/**
 * JSON Schema `pattern` (ECMAScript syntax) that matches exactly the texts {@link canonicalMac}
 * accepts: six or eight pairs with one separator, three or four groups of four, or 12 or 16 bare
 * hex digits, in any case. For body schemas and their OpenAPI documents.
 */
export const MAC_INPUT_PATTERN =
  `^(?:${HEX2}([:-])${HEX2}(?:\\1${HEX2}){4}(?:\\1${HEX2}\\1${HEX2})?` +
  `|${HEX4}(?:\\.${HEX4}){2}(?:\\.${HEX4})?` +
  `|[0-9A-Fa-f]{12}(?:${HEX4})?)$`;

/** Whether text is already a canonical mac. */
export function isCanonicalMac(text: unknown): text is string {
  return typeof text === 'string' && CANONICAL.test(text);
}

/** 400 text for a mac that is not a hardware address (docs/decisions.md §6). */
export const INVALID_MAC = 'mac must be a hardware address (EUI-48 or EUI-64), e.g. AC:67:B2:01:02:03';
