import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** `prevHash` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields of a ledger entry that its hash covers, besides the previous hash. */
export interface LedgerFields {
  seq: number;
  tenantId: number;
  type: string;
  subject: string;
  /** Canonical JSON text of the payload. */
  payload: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /**
   * Who made the change (`user:alice`, `token:3:ci-pipeline`, `cli:root`; see `ledger-actor.ts`),
   * `null` or absent for changes nobody operated: a device's own registration or report, and every
   * entry written before actors were recorded.
   */
  actor?: string | null;
}

/** Canonical JSON (RFC 8785 / JCS) of a value: sorted keys, no whitespace. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/**
 * Hash of a ledger entry (docs/decisions.md §7): lowercase hex SHA-256 over the previous entry's
 * hash, a newline, and the canonical JSON of the entry's fields. The `actor` key is part of that
 * JSON only when the entry names one, so entries without an actor (all those written before
 * actors were recorded) hash exactly as they always did, and an entry's actor cannot be changed,
 * added or removed without breaking the chain.
 */
export function ledgerHash(prevHash: string, fields: LedgerFields): string {
  return createHash('sha256').update(ledgerLeafText(prevHash, fields), 'utf8').digest('hex');
}

/**
 * The text an entry's hash is taken over: the previous entry's hash, a newline, and the canonical
 * JSON of the entry's fields ({@link ledgerHash}). It is also the entry's leaf in the Merkle tree
 * (RFC 9162 leaf hash: SHA-256 of a 0x00 byte and this text's UTF-8 bytes), so one text proves
 * both the chain link and the tree inclusion.
 */
export function ledgerLeafText(prevHash: string, fields: LedgerFields): string {
  const { seq, tenantId, type, subject, payload, createdAt, actor } = fields;
  const hashed = { seq, tenantId, type, subject, payload, createdAt, ...(actor == null ? {} : { actor }) };
  return `${prevHash}\n${canonicalJson(hashed)}`;
}

/** Where a chain stops matching. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/**
 * Checks one entry against its predecessor.
 * @returns `null` when it matches, otherwise what does not.
 */
export function checkLink(
  previous: { seq: number; hash: string } | null,
  entry: LedgerFields & { prevHash: string; hash: string },
): ChainBreak | null {
  const expectedSeq = previous ? previous.seq + 1 : 1;
  if (entry.seq !== expectedSeq) return { seq: entry.seq, reason: `sequence ${entry.seq} where ${expectedSeq} was expected` };
  const expectedPrev = previous ? previous.hash : GENESIS_HASH;
  if (entry.prevHash !== expectedPrev) return { seq: entry.seq, reason: 'previous hash does not match the entry before it' };
  if (ledgerHash(entry.prevHash, entry) !== entry.hash) return { seq: entry.seq, reason: 'hash does not match the entry content' };
  return null;
}
