import { MigrationInterface, QueryRunner, Table } from 'typeorm';

const references = (table: string, column: string, onDelete: 'CASCADE' | 'SET NULL') => ({
  columnNames: [column],
  referencedTableName: table,
  referencedColumnNames: ['id'],
  onDelete,
});

/**
 * What Mender devices need (docs/decisions.md §13):
 * - `device_auth_set`: a device identity (its canonical `id_data`) with one public key, its
 *   fingerprint and its state (`pending`, `accepted`, `rejected`, `preauthorized`,
 *   `decommissioned`), the device key its tenant token named, one row per (tenant, identifier, key);
 * - `device_key.auto_accept`: a key whose new devices are accepted at once (existing keys: no);
 * - `tenant.artifact_verify_key`: the PEM public key Mender artifacts of the tenant must be signed with (none);
 * - `firmware.mender_artifact`: what the header of a published Mender artifact says (JSON; `null` for other firmware);
 * - `deployment_log`: the log a device sent for its last failed attempt in a rollout.
 * Plain `ALTER TABLE … ADD COLUMN` and new tables, the same on SQLite and PostgreSQL.
 */
export class MenderDevices1764900000000 implements MigrationInterface {
  name = 'MenderDevices1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE device_key ADD COLUMN auto_accept boolean NOT NULL DEFAULT false');
    await q.query('ALTER TABLE tenant ADD COLUMN artifact_verify_key text');
    await q.query('ALTER TABLE firmware ADD COLUMN mender_artifact text');
    await q.createTable(
      new Table({
        name: 'device_auth_set',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'integer' },
          { name: 'identifier', type: 'varchar', length: '256' },
          { name: 'id_data', type: 'text' },
          { name: 'public_key', type: 'text' },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'device_key_id', type: 'integer', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [
          { name: 'UQ_device_auth_set_key', columnNames: ['tenant_id', 'identifier', 'fingerprint'], isUnique: true },
          { name: 'IDX_device_auth_set_status', columnNames: ['tenant_id', 'status', 'id'] },
        ],
        foreignKeys: [references('tenant', 'tenant_id', 'CASCADE'), references('device_key', 'device_key_id', 'SET NULL')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'deployment_log',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'rollout_id', type: 'integer' },
          { name: 'device_id', type: 'integer' },
          { name: 'received_at', type: 'bigint' },
          { name: 'messages', type: 'text' },
        ],
        indices: [{ name: 'UQ_deployment_log_device', columnNames: ['rollout_id', 'device_id'], isUnique: true }],
        foreignKeys: [references('rollout', 'rollout_id', 'CASCADE'), references('device', 'device_id', 'CASCADE')],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('deployment_log');
    await q.dropTable('device_auth_set');
    await q.dropColumn('firmware', 'mender_artifact');
    await q.dropColumn('tenant', 'artifact_verify_key');
    await q.dropColumn('device_key', 'auto_accept');
  }
}
