import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { CheckpointService, type SignedCheckpoint } from './checkpoint.service.js';
import { ledgerLeafText } from './ledger-hash.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerTreeService } from './ledger-tree.service.js';
import { leafHash } from './merkle.js';
import type { LedgerEntry } from './ledger-entry.entity.js';

/** Texts of the proof errors. */
export const ProofMessages = {
  entryNotFound: (seq: number) => `Ledger entry ${seq} not found`,
  beyondCheckpoint: (seq: number, size: number) =>
    `Ledger entry ${seq} is not in the published checkpoint yet (tree size ${size}); ask again once it is`,
  sizeBeyondTree: (size: number, treeSize: number) => `tree_size ${size} is larger than the ledger's tree (${treeSize} entries)`,
  fromAfterTo: (from: number, to: number) => `from (${from}) must not be larger than to (${to})`,
  fromZero: 'from must be at least 1: nothing is proved about an empty tree',
} as const;

/** An inclusion proof of one entry (RFC 9162), against a checkpoint. */
export interface InclusionView {
  seq: number;
  /** `seq - 1`. */
  leafIndex: number;
  treeSize: number;
  leafHash: Buffer;
  proof: Buffer[];
  /** The signed checkpoint of `treeSize`, when one was signed at that size. */
  checkpoint: string | null;
}

/** {@link InclusionView} with the entry itself and the exact text its leaf hashes. */
export interface EntryProofView extends InclusionView {
  entry: LedgerEntry;
  /** Previous hash, newline, canonical JSON of the entry: SHA-256(0x00 || this) is the leaf hash, SHA-256(this) the entry hash. */
  leafText: string;
}

/** A consistency proof between two tree sizes (RFC 9162). */
export interface ConsistencyView {
  from: number;
  to: number;
  fromRoot: Buffer;
  toRoot: Buffer;
  proof: Buffer[];
}

/**
 * Proofs over the ledger's Merkle tree: an entry's inclusion in a checkpoint (the published one
 * unless a tree size is named), and the consistency of two tree sizes. Sizes are checked here so
 * every caller (device lookups, public proofs, operator REST, CLI) answers alike.
 */
@Injectable()
export class LedgerProofService {
  constructor(
    private readonly entries: LedgerRepository,
    private readonly tree: LedgerTreeService,
    private readonly checkpoints: CheckpointService,
  ) {}

  /**
   * Inclusion proof of entry `seq` (hashes only).
   * @param treeSize the tree to prove it in; default the published checkpoint's.
   * @throws NotFoundException when the entry does not exist; FieldException (400) for a size beyond the tree;
   *   ConflictException when it is not yet in the published checkpoint.
   */
  async inclusion(seq: number, treeSize?: number): Promise<InclusionView> {
    const entry = await this.entries.bySeq(seq);
    if (!entry) throw new NotFoundException(ProofMessages.entryNotFound(seq));
    return this.prove(entry, treeSize);
  }

  /** {@link inclusion} with the entry and its leaf text. */
  async entryProof(seq: number, treeSize?: number): Promise<EntryProofView> {
    const entry = await this.entries.bySeq(seq);
    if (!entry) throw new NotFoundException(ProofMessages.entryNotFound(seq));
    return { ...(await this.prove(entry, treeSize)), entry, leafText: ledgerLeafText(entry.prevHash, entry) };
  }

  /**
   * The proof of the newest entry of a tenant's subject (`firmware:7`, `device:<mac>`), against the published checkpoint.
   * @returns `null` when the subject has no entry.
   */
  async subjectProof(tenantId: number, subject: string): Promise<EntryProofView | null> {
    const newest = await this.entries.newestSeqOfSubject(tenantId, subject);
    return newest === null ? null : this.entryProof(newest);
  }

  /**
   * Consistency proof from tree size `from` to `to` (default: the published checkpoint's size).
   * @throws FieldException (400) naming `from` or `to` for sizes outside 1 ≤ from ≤ to ≤ the tree's size.
   */
  async consistency(from: number, to?: number): Promise<ConsistencyView> {
    const size = await this.tree.size();
    const target = to ?? (await this.checkpoints.published()).treeSize;
    if (from < 1) throw new FieldException('from', ProofMessages.fromZero);
    // Without `to` the target is the published checkpoint's size, never beyond the tree.
    if (target > size) throw new FieldException('to', ProofMessages.sizeBeyondTree(target, size));
    if (from > target) throw new FieldException('from', ProofMessages.fromAfterTo(from, target));
    const [proof, fromRoot, toRoot] = await Promise.all([
      this.tree.consistency(from, target),
      this.tree.root(from),
      this.tree.root(target),
    ]);
    return { from, to: target, fromRoot, toRoot, proof };
  }

  private async prove(entry: LedgerEntry, treeSize?: number): Promise<InclusionView> {
    let checkpoint: SignedCheckpoint | null;
    let size: number;
    if (treeSize === undefined) {
      checkpoint = await this.checkpoints.published();
      size = checkpoint.treeSize;
      if (entry.seq > size) throw new ConflictException(ProofMessages.beyondCheckpoint(entry.seq, size));
    } else {
      const treeNow = await this.tree.size();
      if (treeSize > treeNow) throw new FieldException('tree_size', ProofMessages.sizeBeyondTree(treeSize, treeNow));
      if (entry.seq > treeSize) throw new FieldException('tree_size', `tree_size ${treeSize} does not hold entry ${entry.seq}`);
      size = treeSize;
      checkpoint = await this.checkpoints.ofSize(size);
    }
    return {
      seq: entry.seq,
      leafIndex: entry.seq - 1,
      treeSize: size,
      leafHash: leafHash(ledgerLeafText(entry.prevHash, entry)),
      proof: await this.tree.inclusion(entry.seq - 1, size),
      checkpoint: checkpoint?.note ?? null,
    };
  }
}
