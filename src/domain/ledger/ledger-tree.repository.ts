import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource, EntityManager, In, MoreThan } from 'typeorm';
import { LedgerEntry } from './ledger-entry.entity.js';
import { LedgerCheckpoint, LedgerCosignature, LedgerTreeNode } from './ledger-tree.entity.js';
import { query } from '#src/platform/database/sql.js';
import { nodeKey, type TreeNode } from './merkle.js';

/** Database access for the Merkle tree over the ledger, its checkpoints and their cosignatures. */
@Injectable()
export class LedgerTreeRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private manager(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /** The tree size: the sequence number of the newest entry (entries are numbered 1, 2, 3… without gaps). */
  async size(manager?: EntityManager): Promise<number> {
    const [last] = await this.manager(manager).find(LedgerEntry, { select: { seq: true }, order: { seq: 'DESC' }, take: 1 });
    return last?.seq ?? 0;
  }

  /** The stored hashes of these perfect subtrees, by {@link nodeKey}; absent ones are missing from the map. */
  async nodes(keys: Array<{ level: number; index: number }>, manager?: EntityManager): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    for (let i = 0; i < keys.length; i += 200) {
      const rows = await this.manager(manager).find(LedgerTreeNode, {
        where: keys.slice(i, i + 200).map(({ level, index }) => ({ level, index })),
      });
      for (const row of rows) found.set(nodeKey(row.level, row.index), Buffer.from(row.hash, 'hex'));
    }
    return found;
  }

  /**
   * In one statement, inside the appender's transaction (the ledger lock held): the newest entry's
   * sequence number and hash (`null` on an empty ledger) and the stored right edge of the tree of
   * that many leaves, largest subtree first (for a size with bit L set, the node at level L,
   * index `(size >> L) - 1`, as `CompactTree.edgeNodes`). A missing node is simply absent.
   */
  async headAndEdge(manager: EntityManager): Promise<{ head: { seq: number; hash: string } | null; edge: TreeNode[] }> {
    const rows = await query<Array<{ level: number | string; idx: number | string; hash: string }>>(
      manager,
      `WITH RECURSIVE bits(l) AS (SELECT 0 UNION ALL SELECT l + 1 FROM bits WHERE l < 30),
         head AS (SELECT seq, hash FROM ledger_entry ORDER BY seq DESC LIMIT 1)
       SELECT -1 AS level, head.seq AS idx, head.hash AS hash FROM head
       UNION ALL
       SELECT n.level, n.idx, n.hash FROM head
         JOIN bits ON ((head.seq >> bits.l) & 1) = 1
         JOIN ledger_tree_node n ON n.level = bits.l AND n.idx = (head.seq >> bits.l) - 1`,
    );
    let head: { seq: number; hash: string } | null = null;
    const edge: TreeNode[] = [];
    for (const row of rows) {
      if (Number(row.level) === -1) head = { seq: Number(row.idx), hash: row.hash };
      else edge.push({ level: Number(row.level), index: Number(row.idx), hash: Buffer.from(row.hash, 'hex') });
    }
    return { head, edge: edge.sort((a, b) => b.level - a.level) };
  }

  /** Writes (or overwrites) perfect subtrees inside the caller's transaction. */
  async putNodes(manager: EntityManager, nodes: TreeNode[]): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(LedgerTreeNode)
      .values(nodes.map((n) => ({ level: n.level, index: n.index, hash: n.hash.toString('hex') })))
      .orUpdate(['hash'], ['level', 'idx'])
      .execute();
  }

  /**
   * The stored hashes of level `level`, indexes `from`..`to`, in index order: one range query on
   * the primary key (a hash tile, C2SP tlog-tiles). Missing nodes are simply absent.
   */
  async nodeRange(level: number, from: number, to: number): Promise<Array<{ index: number; hash: string }>> {
    const rows = await this.dataSource.getRepository(LedgerTreeNode).find({
      select: { index: true, hash: true },
      where: { level, index: Between(from, to) },
      order: { index: 'ASC' },
    });
    return rows.map((row) => ({ index: row.index, hash: row.hash }));
  }

  /** The level-0 nodes (leaf hashes) of entries `fromIndex`..`fromIndex + count - 1` (0-based). */
  async leaves(fromIndex: number, count: number): Promise<Map<number, string>> {
    const rows = await this.dataSource.getRepository(LedgerTreeNode).find({
      where: { level: 0, index: In(Array.from({ length: count }, (_, i) => fromIndex + i)) },
    });
    return new Map(rows.map((row) => [row.index, row.hash]));
  }

  newestCheckpoint(): Promise<LedgerCheckpoint | null> {
    return this.dataSource.getRepository(LedgerCheckpoint).findOne({ where: {}, order: { treeSize: 'DESC' } });
  }

  checkpoint(treeSize: number): Promise<LedgerCheckpoint | null> {
    return this.dataSource.getRepository(LedgerCheckpoint).findOneBy({ treeSize });
  }

  /** Stores a checkpoint unless one of that size exists (instances signing the same size race here). */
  async addCheckpoint(checkpoint: LedgerCheckpoint): Promise<void> {
    await this.dataSource.createQueryBuilder().insert().into(LedgerCheckpoint).values(checkpoint).orIgnore().execute();
  }

  /** The tree size of every stored checkpoint, smallest first. */
  async checkpointSizes(): Promise<number[]> {
    const rows = await this.dataSource.getRepository(LedgerCheckpoint).find({ select: { treeSize: true }, order: { treeSize: 'ASC' } });
    return rows.map((row) => row.treeSize);
  }

  /** Checkpoints by tree size, smallest first, from `afterSize` on; `limit` at a time. */
  checkpointsAfter(afterSize: number, limit: number): Promise<LedgerCheckpoint[]> {
    return this.dataSource
      .getRepository(LedgerCheckpoint)
      .find({ where: { treeSize: MoreThan(afterSize) }, order: { treeSize: 'ASC' }, take: limit });
  }

  /**
   * The newest checkpoint cosigned by at least `quorum` of these witnesses; `null` when none is.
   * @param witnesses verifier keys.
   */
  async newestWitnessed(witnesses: string[], quorum: number): Promise<LedgerCheckpoint | null> {
    const row = await this.dataSource
      .getRepository(LedgerCosignature)
      .createQueryBuilder('s')
      .select('s.tree_size', 'size')
      .where('s.witness IN (:...witnesses)', { witnesses })
      .groupBy('s.tree_size')
      .having('COUNT(*) >= :quorum', { quorum })
      .orderBy('s.tree_size', 'DESC')
      .limit(1)
      .getRawOne<{ size: number | string }>();
    return row ? this.checkpoint(Number(row.size)) : null;
  }

  /** The cosignatures of a checkpoint, by witness key. */
  cosignatures(treeSize: number): Promise<LedgerCosignature[]> {
    return this.dataSource.getRepository(LedgerCosignature).find({ where: { treeSize }, order: { witness: 'ASC' } });
  }

  /** Keeps a witness's cosignature (a newer one of the same witness replaces it). */
  async putCosignature(cosignature: LedgerCosignature): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(LedgerCosignature)
      .values(cosignature)
      .orUpdate(['line', 'created_at'], ['tree_size', 'witness'])
      .execute();
  }
}
