import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Indexes for the operator API's reads (docs/decisions.md §9): device filters by firmware version and
 * device type, a device's groups (membership by mac), a device's rollout history (success records
 * by device, which also keeps the cascade on device deletion from scanning the table), and the
 * ledger of one tenant in sequence order. `last_seen_at` is deliberately not indexed: devices
 * write it on every request, operators filter by it rarely.
 */
export class OperatorQueryIndexes1763912000000 implements MigrationInterface {
  name = 'OperatorQueryIndexes1763912000000';

  private readonly indexes: [table: string, index: TableIndex][] = [
    ['device', new TableIndex({ name: 'IDX_device_tenant_firmware_version', columnNames: ['tenant_id', 'firmware_version'] })],
    ['device', new TableIndex({ name: 'IDX_device_tenant_device_type', columnNames: ['tenant_id', 'device_type'] })],
    ['group_member', new TableIndex({ name: 'IDX_group_member_mac', columnNames: ['mac'] })],
    ['rollout_success', new TableIndex({ name: 'IDX_rollout_success_device', columnNames: ['device_id'] })],
    ['ledger_entry', new TableIndex({ name: 'IDX_ledger_tenant_seq', columnNames: ['tenant_id', 'seq'] })],
  ];

  async up(q: QueryRunner): Promise<void> {
    for (const [table, index] of this.indexes) await q.createIndex(table, index);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, index] of [...this.indexes].reverse()) await q.dropIndex(table, index.name!);
  }
}
