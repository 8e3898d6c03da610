import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { readJsonText } from '#src/platform/common/json-text.js';
import { canonicalMac } from '#src/platform/common/mac.js';

/**
 * A Mender device's identity (docs/decisions.md §13): the attributes its identity script prints
 * (`mac=…`, `serial=…`), which the client sends as `id_data`, a JSON object in a string. Values
 * are strings, or lists of strings for a key printed more than once.
 */
export type IdentityData = Record<string, string | string[]>;

/** Longest `id_data` text, characters (deviceauth keeps it in a document; a few attributes in practice). */
export const ID_DATA_MAX_LENGTH = 4096;

/** 400 text of `id_data` that is not an identity. */
export const INVALID_ID_DATA =
  'id_data must be a JSON object of at most 4096 characters whose values are strings or lists of strings, with at least one attribute, ' +
  'all valid Unicode text without NUL characters';

/** Prefix of the identifier of a device whose identity has no usable `mac`. */
export const DIGEST_PREFIX = 'mender-';

/**
 * The identity an `id_data` text holds, or `null` when it is not one (not JSON as the body reader
 * reads it, `readJsonText`: no prototype-poisoning key, no lone surrogate or NUL in a key or value;
 * not an object, no attribute, a value that is neither a string nor a list of strings, too long).
 */
export function parseIdentityData(text: string): IdentityData | null {
  if (text.length > ID_DATA_MAX_LENGTH) return null;
  const read = readJsonText(text);
  if ('refused' in read) return null;
  const value = read.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return null;
  for (const [, v] of entries) {
    const ok = typeof v === 'string' || (Array.isArray(v) && v.length > 0 && v.every((item) => typeof item === 'string'));
    if (!ok) return null;
  }
  return value as IdentityData;
}

/**
 * The canonical text of an identity (RFC 8785 JSON: keys sorted, no blanks), what is kept and
 * compared: the same identity written with other key order or spacing is the same device.
 */
export function canonicalIdentityData(identity: IdentityData): string {
  return canonicalize(identity)!;
}

/**
 * The identifier a Mender device gets in the device table (docs/decisions.md §13): its `mac`
 * attribute in canonical form when it has one that is a hardware address, so it is the same
 * device name the other protocols use; otherwise `mender-` and the first 32 hex digits (128 bits)
 * of the SHA-256 of its canonical identity.
 */
export function identityIdentifier(identity: IdentityData): string {
  const mac = identity['mac'];
  if (typeof mac === 'string') {
    const canonical = canonicalMac(mac);
    if (canonical !== null) return canonical;
  }
  return `${DIGEST_PREFIX}${createHash('sha256').update(canonicalIdentityData(identity)).digest('hex').slice(0, 32)}`;
}
