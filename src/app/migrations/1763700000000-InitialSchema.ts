import { MigrationInterface, QueryRunner, Table, TableIndex, type TableColumnOptions } from 'typeorm';

const id: TableColumnOptions = { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' };
const createdAt: TableColumnOptions = { name: 'created_at', type: 'bigint' };
const tenantRef: TableColumnOptions = { name: 'tenant_id', type: 'integer' };
const cascadeTo = (table: string, column: string, referenced = 'id') => ({
  columnNames: [column],
  referencedTableName: table,
  referencedColumnNames: [referenced],
  onDelete: 'CASCADE',
});

/** Tenants, keys, devices, firmware, groups, rollouts, the ledger and login bookkeeping. */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tenant',
        columns: [
          id,
          { name: 'name', type: 'varchar', length: '128', isUnique: true },
          { name: 'customer_key', type: 'varchar', length: '128' },
          createdAt,
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'device_key',
        columns: [
          id,
          tenantRef,
          { name: 'key', type: 'varchar', length: '128', isUnique: true },
          { name: 'device_type', type: 'varchar', length: '64' },
          { name: 'revoked_at', type: 'bigint', isNullable: true },
          createdAt,
        ],
        foreignKeys: [cascadeTo('tenant', 'tenant_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'device',
        columns: [
          id,
          tenantRef,
          { name: 'mac', type: 'varchar', length: '23' },
          { name: 'name', type: 'varchar', length: '128' },
          { name: 'firmware_version', type: 'varchar', length: '64' },
          { name: 'device_key_id', type: 'integer' },
          { name: 'device_type', type: 'varchar', length: '64' },
          { name: 'last_seen_at', type: 'bigint', isNullable: true },
          createdAt,
        ],
        uniques: [{ name: 'UQ_device_tenant_mac', columnNames: ['tenant_id', 'mac'] }],
        foreignKeys: [cascadeTo('tenant', 'tenant_id'), cascadeTo('device_key', 'device_key_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'firmware',
        columns: [
          id,
          tenantRef,
          { name: 'version', type: 'varchar', length: '64' },
          { name: 'device_type', type: 'varchar', length: '64' },
          { name: 'size', type: 'bigint' },
          { name: 'md5', type: 'varchar', length: '32' },
          { name: 'sha256', type: 'varchar', length: '64' },
          { name: 'cid', type: 'varchar', length: '64' },
          createdAt,
        ],
        uniques: [{ name: 'UQ_firmware_tenant_type_version', columnNames: ['tenant_id', 'device_type', 'version'] }],
        indices: [{ name: 'IDX_firmware_tenant_cid', columnNames: ['tenant_id', 'cid'] }],
        foreignKeys: [cascadeTo('tenant', 'tenant_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'device_group',
        columns: [id, tenantRef, { name: 'name', type: 'varchar', length: '128' }, createdAt],
        uniques: [{ name: 'UQ_device_group_tenant_name', columnNames: ['tenant_id', 'name'] }],
        foreignKeys: [cascadeTo('tenant', 'tenant_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'group_member',
        columns: [
          { name: 'group_id', type: 'integer', isPrimary: true },
          { name: 'mac', type: 'varchar', length: '23', isPrimary: true },
        ],
        foreignKeys: [cascadeTo('device_group', 'group_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'rollout',
        columns: [
          id,
          tenantRef,
          { name: 'name', type: 'varchar', length: '128' },
          { name: 'firmware_id', type: 'integer' },
          { name: 'group_id', type: 'integer' },
          { name: 'priority', type: 'integer' },
          { name: 'start_date', type: 'bigint' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'downgrade', type: 'boolean', default: false },
          createdAt,
        ],
        indices: [{ name: 'IDX_rollout_tenant_status', columnNames: ['tenant_id', 'status'] }],
        foreignKeys: [cascadeTo('tenant', 'tenant_id'), cascadeTo('firmware', 'firmware_id'), cascadeTo('device_group', 'group_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'rollout_success',
        columns: [
          id,
          { name: 'rollout_id', type: 'integer' },
          { name: 'device_id', type: 'integer' },
          { name: 'firmware_version', type: 'varchar', length: '64' },
          createdAt,
        ],
        uniques: [{ name: 'UQ_rollout_success_rollout_device', columnNames: ['rollout_id', 'device_id'] }],
        foreignKeys: [cascadeTo('rollout', 'rollout_id'), cascadeTo('device', 'device_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'ledger_entry',
        columns: [
          { name: 'seq', type: 'integer', isPrimary: true },
          tenantRef,
          { name: 'type', type: 'varchar', length: '64' },
          { name: 'subject', type: 'varchar', length: '128' },
          { name: 'payload', type: 'text' },
          createdAt,
          { name: 'prev_hash', type: 'varchar', length: '64' },
          { name: 'hash', type: 'varchar', length: '64' },
        ],
      }),
    );
    await q.createIndex('ledger_entry', new TableIndex({ name: 'IDX_ledger_subject', columnNames: ['tenant_id', 'subject', 'seq'] }));
    await q.createTable(
      new Table({
        name: 'login_nonce',
        columns: [
          { name: 'device_key_id', type: 'integer', isPrimary: true },
          { name: 'timestamp', type: 'bigint', isPrimary: true },
          createdAt,
        ],
        indices: [{ name: 'IDX_login_nonce_created', columnNames: ['created_at'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'login_rate',
        columns: [
          { name: 'key', type: 'varchar', length: '320', isPrimary: true },
          { name: 'hits', type: 'integer' },
          { name: 'resets_at', type: 'bigint' },
        ],
        indices: [{ name: 'IDX_login_rate_resets', columnNames: ['resets_at'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'login_rate',
      'login_nonce',
      'ledger_entry',
      'rollout_success',
      'rollout',
      'group_member',
      'device_group',
      'firmware',
      'device',
      'device_key',
      'tenant',
    ]) {
      await q.dropTable(table);
    }
  }
}
