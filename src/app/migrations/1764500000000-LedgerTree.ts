import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { ledgerLeafText } from '#src/domain/ledger/ledger-hash.js';
import { CompactTree, leafHash } from '#src/domain/ledger/merkle.js';

/**
 * The Merkle tree over the ledger (RFC 9162): its stored perfect subtrees, the signed checkpoints
 * and the witness cosignatures on them. The tree of the entries already written is built here,
 * a page of entries at a time, with the same leaf rule as every later append.
 */
export class LedgerTree1764500000000 implements MigrationInterface {
  name = 'LedgerTree1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'ledger_tree_node',
        columns: [
          { name: 'level', type: 'integer', isPrimary: true },
          { name: 'idx', type: 'integer', isPrimary: true },
          { name: 'hash', type: 'varchar', length: '64' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'ledger_checkpoint',
        columns: [
          { name: 'tree_size', type: 'integer', isPrimary: true },
          { name: 'root_hash', type: 'varchar', length: '64' },
          { name: 'note', type: 'text' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'ledger_cosignature',
        columns: [
          { name: 'tree_size', type: 'integer', isPrimary: true },
          { name: 'witness', type: 'varchar', length: '300', isPrimary: true },
          { name: 'line', type: 'text' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    const postgres = q.connection.options.type === 'postgres';
    const param = (i: number): string => (postgres ? `$${i}` : '?');
    const tree = new CompactTree();
    for (let after = 0; ;) {
      const rows = (await q.query(
        `SELECT seq, tenant_id, type, subject, payload, created_at, actor, prev_hash FROM ledger_entry WHERE seq > ${param(1)} ORDER BY seq LIMIT 500`,
        [after],
      )) as Array<Record<string, string | number | null>>;
      const nodes = rows.flatMap((row) =>
        tree.push(
          leafHash(
            ledgerLeafText(String(row['prev_hash']), {
              seq: Number(row['seq']),
              tenantId: Number(row['tenant_id']),
              type: String(row['type']),
              subject: String(row['subject']),
              payload: String(row['payload']),
              createdAt: Number(row['created_at']),
              actor: row['actor'] == null ? null : String(row['actor']),
            }),
          ),
        ),
      );
      for (let i = 0; i < nodes.length; i += 100) {
        const chunk = nodes.slice(i, i + 100);
        await q.query(
          `INSERT INTO ledger_tree_node (level, idx, hash) VALUES ${chunk.map((_, j) => `(${param(3 * j + 1)}, ${param(3 * j + 2)}, ${param(3 * j + 3)})`).join(', ')}`,
          chunk.flatMap((n) => [n.level, n.index, n.hash.toString('hex')]),
        );
      }
      if (rows.length < 500) break;
      after = Number(rows[rows.length - 1]['seq']);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('ledger_cosignature');
    await q.dropTable('ledger_checkpoint');
    await q.dropTable('ledger_tree_node');
  }
}
