import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Indexes for operator reads at a million devices (docs/decisions.md §9), where EXPLAIN showed a
 * scan of every device of the tenant or every state of the rollout:
 * - `device (tenant_id, last_seen_at)`: the device list's `seen_since` / `not_seen_since` filters
 *   and their `total` read a range of it (covering) instead of every device of the tenant;
 * - `rollout_device_state (rollout_id, state, updated_at)`: a rollout's last activity (the latest
 *   change of a state other than `pending`) is one seek per state instead of a read of every state
 *   of the rollout.
 */
export class OperatorReadIndexes1765600000000 implements MigrationInterface {
  name = 'OperatorReadIndexes1765600000000';

  private readonly indexes: [table: string, index: TableIndex][] = [
    ['device', new TableIndex({ name: 'IDX_device_tenant_last_seen', columnNames: ['tenant_id', 'last_seen_at'] })],
    [
      'rollout_device_state',
      new TableIndex({ name: 'IDX_rollout_device_state_rollout_state_updated', columnNames: ['rollout_id', 'state', 'updated_at'] }),
    ],
  ];

  async up(q: QueryRunner): Promise<void> {
    for (const [table, index] of this.indexes) await q.createIndex(table, index);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, index] of [...this.indexes].reverse()) await q.dropIndex(table, index.name!);
  }
}
