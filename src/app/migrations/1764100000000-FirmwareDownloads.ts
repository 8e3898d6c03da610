import { MigrationInterface, QueryRunner, Table } from 'typeorm';

const references = (table: string, column: string, onDelete: 'CASCADE' | 'SET NULL') => ({
  columnNames: [column],
  referencedTableName: table,
  referencedColumnNames: ['id'],
  onDelete,
});

/**
 * The record of firmware downloads from the IPFS component: who asked (tenant, device key, and
 * the device when the updater's MAC header names a registered one), for which firmware and CID,
 * when, and which bytes. A deleted device keeps its downloads, without the device reference.
 */
export class FirmwareDownloads1764100000000 implements MigrationInterface {
  name = 'FirmwareDownloads1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'firmware_download',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'integer' },
          { name: 'device_key_id', type: 'integer' },
          { name: 'device_id', type: 'integer', isNullable: true },
          { name: 'mac', type: 'varchar', length: '23', isNullable: true },
          { name: 'firmware_id', type: 'integer' },
          { name: 'cid', type: 'varchar', length: '64' },
          { name: 'range_start', type: 'bigint' },
          { name: 'range_end', type: 'bigint' },
          { name: 'requested_at', type: 'bigint' },
        ],
        indices: [
          { name: 'IDX_firmware_download_device', columnNames: ['tenant_id', 'device_id', 'requested_at'] },
          { name: 'IDX_firmware_download_firmware', columnNames: ['firmware_id'] },
        ],
        foreignKeys: [
          references('tenant', 'tenant_id', 'CASCADE'),
          references('device_key', 'device_key_id', 'CASCADE'),
          references('device', 'device_id', 'SET NULL'),
          references('firmware', 'firmware_id', 'CASCADE'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('firmware_download');
  }
}
