import { ConflictException, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { LedgerTreeRepository } from './ledger-tree.repository.js';
import { appendPath, consistencyProof, inclusionProof, leafHash, nodeKey, nodesRead, rootHash, type NodeSource } from './merkle.js';

/** 409 text when a stored subtree a proof needs is missing (the tree was altered by hand). */
export const treeNodeMissing = (level: number, index: number): string =>
  `The ledger's Merkle tree lacks its node ${level}/${index}; run firmledger ledger verify`;

/**
 * The Merkle tree over the ledger entries (RFC 9162): entry `seq` is leaf `seq - 1`, its leaf
 * data the text its hash covers ({@link ledgerLeafText}). Every complete perfect subtree is
 * stored, so an append writes O(log n) nodes and a root or proof reads O(log n) nodes in one query.
 */
@Injectable()
export class LedgerTreeService {
  private readonly logger = new Logger(LedgerTreeService.name);

  constructor(private readonly tree: LedgerTreeRepository) {}

  /**
   * Adds entry `seq`'s leaf and the subtrees it completes, inside the append's transaction (the
   * ledger lock is held, so the tree grows in entry order on every instance). A missing left
   * sibling (a tree altered by hand) stops the climb: the entry is still written, and
   * `ledger verify` names the gap.
   */
  async append(manager: EntityManager, seq: number, leafText: string): Promise<void> {
    const index = seq - 1;
    const leaf = leafHash(leafText);
    const wanted = nodesRead((source) => appendPath(index, leaf, source));
    const stored = wanted.length ? await this.tree.nodes(wanted, manager) : new Map<string, Buffer>();
    const completed = [];
    try {
      completed.push(
        ...appendPath(index, leaf, (level, i) => {
          const hash = stored.get(nodeKey(level, i));
          if (!hash) throw new MissingNode(level, i);
          return hash;
        }),
      );
    } catch (error) {
      if (!(error instanceof MissingNode)) throw error;
      this.logger.warn(`ledger tree: node ${error.level}/${error.index} is missing; entry ${seq} is added without the subtrees above it`);
      completed.push({ level: 0, index, hash: leaf });
    }
    await this.tree.putNodes(manager, completed);
  }

  /** The number of leaves: the newest entry's sequence number. */
  size(): Promise<number> {
    return this.tree.size();
  }

  /** Root hash of the first `size` entries. @throws ConflictException when a stored node is missing. */
  root(size: number): Promise<Buffer> {
    return this.compute((nodes) => rootHash(nodes, size));
  }

  /** RFC 9162 inclusion proof of leaf `index` (0-based) in the tree of `size` leaves. */
  inclusion(index: number, size: number): Promise<Buffer[]> {
    return this.compute((nodes) => inclusionProof(nodes, index, size));
  }

  /** RFC 9162 consistency proof from the tree of `from` leaves to that of `to`. */
  consistency(from: number, to: number): Promise<Buffer[]> {
    return this.compute((nodes) => consistencyProof(nodes, from, to));
  }

  /** Leaf hash of one entry as stored; `null` when absent. */
  async leaf(index: number): Promise<Buffer | null> {
    return (await this.tree.nodes([{ level: 0, index }])).get(nodeKey(0, index)) ?? null;
  }

  /** Runs a pure tree computation over the stored nodes it reads, fetched in one go. */
  private async compute<T>(run: (nodes: NodeSource) => T): Promise<T> {
    const stored = await this.tree.nodes(nodesRead(run));
    return run((level, index) => {
      const hash = stored.get(nodeKey(level, index));
      if (!hash) throw new ConflictException(treeNodeMissing(level, index));
      return hash;
    });
  }
}

class MissingNode extends Error {
  constructor(
    readonly level: number,
    readonly index: number,
  ) {
    super(`node ${level}/${index} missing`);
  }
}
