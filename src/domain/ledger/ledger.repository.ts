import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource, EntityManager, In } from 'typeorm';
import { query } from '#src/platform/database/sql.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import type { TreeNode } from './merkle.js';

/** Database access for ledger entries. */
@Injectable()
export class LedgerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The newest entry's sequence number and hash, read inside the appender's transaction; `null` on an empty ledger. */
  async head(manager: EntityManager): Promise<Pick<LedgerEntry, 'seq' | 'hash'> | null> {
    const [last] = await manager.find(LedgerEntry, { select: { seq: true, hash: true }, order: { seq: 'DESC' }, take: 1 });
    return last ?? null;
  }

  /**
   * Writes `entries` and the tree nodes they complete (overwriting a stored node at the same
   * place) inside the caller's transaction: one statement on PostgreSQL, two on SQLite.
   */
  async insertWithNodes(manager: EntityManager, entries: readonly LedgerEntry[], nodes: readonly TreeNode[]): Promise<void> {
    const entryRows = entries.map((e) => [e.seq, e.tenantId, e.type, e.subject, e.payload, e.createdAt, e.actor, e.prevHash, e.hash]);
    const nodeRows = nodes.map((n) => [n.level, n.index, n.hash.toString('hex')]);
    const [entryValues, entryTuples] = valuesList(entryRows, 0);
    const insertEntries = `INSERT INTO ledger_entry (seq, tenant_id, type, subject, payload, created_at, actor, prev_hash, hash) VALUES ${entryTuples}`;
    if (nodeRows.length === 0) {
      await query(manager, insertEntries, entryValues);
      return;
    }
    const postgres = manager.connection.options.type === 'postgres';
    const [nodeValues, nodeTuples] = valuesList(nodeRows, postgres ? entryValues.length : 0);
    const insertNodes = `INSERT INTO ledger_tree_node (level, idx, hash) VALUES ${nodeTuples} ON CONFLICT (level, idx) DO UPDATE SET hash = excluded.hash`;
    if (postgres) {
      await query(manager, `WITH entries AS (${insertEntries}) ${insertNodes}`, [...entryValues, ...nodeValues]);
      return;
    }
    await query(manager, insertEntries, entryValues);
    await query(manager, insertNodes, nodeValues);
  }

  /** Writes one entry inside the caller's transaction. */
  async insert(manager: EntityManager, entry: LedgerEntry): Promise<LedgerEntry> {
    const row = manager.create(LedgerEntry, entry);
    await manager.insert(LedgerEntry, row);
    return row;
  }

  /**
   * The newest entry of a subject of one tenant (its type and payload only), of one of `types`
   * when given; `null` when it has none.
   */
  newestOfSubject(tenantId: number, subject: string, types?: readonly string[]): Promise<Pick<LedgerEntry, 'type' | 'payload'> | null> {
    return this.dataSource.getRepository(LedgerEntry).findOne({
      select: { type: true, payload: true },
      where: types === undefined ? { tenantId, subject } : { tenantId, subject, type: In([...types]) },
      order: { seq: 'DESC' },
    });
  }

  /** The entry with this sequence number; `null` when there is none (or the number is out of range). */
  bySeq(seq: number): Promise<LedgerEntry | null> {
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > 2_147_483_647) return Promise.resolve(null);
    return this.dataSource.getRepository(LedgerEntry).findOneBy({ seq });
  }

  /** The sequence number of a subject's newest entry of one tenant; `null` when it has none. */
  async newestSeqOfSubject(tenantId: number, subject: string): Promise<number | null> {
    const entry = await this.dataSource
      .getRepository(LedgerEntry)
      .findOne({ select: { seq: true }, where: { tenantId, subject }, order: { seq: 'DESC' } });
    return entry?.seq ?? null;
  }

  /** Entries `offset`..`offset + limit` by sequence number (of one tenant when given), and how many there are. */
  page(tenantId: number | undefined, offset: number, limit: number, order: 'ASC' | 'DESC'): Promise<[LedgerEntry[], number]> {
    return this.dataSource.getRepository(LedgerEntry).findAndCount({
      where: tenantId === undefined ? {} : { tenantId },
      order: { seq: order },
      skip: offset,
      take: limit,
    });
  }

  /** Up to `limit` entries with a sequence number above `afterSeq`, oldest first. */
  after(afterSeq: number, limit: number): Promise<LedgerEntry[]> {
    return this.dataSource
      .getRepository(LedgerEntry)
      .createQueryBuilder('e')
      .where('e.seq > :after', { after: afterSeq })
      .orderBy('e.seq', 'ASC')
      .take(limit)
      .getMany();
  }

  /** The entries with sequence numbers `fromSeq`..`toSeq`, oldest first (one range query on the primary key). */
  range(fromSeq: number, toSeq: number): Promise<LedgerEntry[]> {
    return this.dataSource.getRepository(LedgerEntry).find({ where: { seq: Between(fromSeq, toSeq) }, order: { seq: 'ASC' } });
  }
}

/** The values of `rows` in order and their `($n, …), …` list, numbered from `after + 1`. */
function valuesList(rows: readonly unknown[][], after: number): [unknown[], string] {
  const values: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((value) => `$${after + values.push(value)}`).join(', ')})`).join(', ');
  return [values, tuples];
}
