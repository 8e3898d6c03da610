import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** Signed TUF metadata per tenant and device type (root versions, targets, snapshot, timestamp). */
export class TufMetadata1764510000000 implements MigrationInterface {
  name = 'TufMetadata1764510000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tuf_metadata',
        columns: [
          { name: 'tenant_id', type: 'integer', isPrimary: true },
          { name: 'device_type', type: 'varchar', length: '64', isPrimary: true },
          { name: 'role', type: 'varchar', length: '16', isPrimary: true },
          { name: 'version', type: 'integer', isPrimary: true },
          { name: 'body', type: 'text' },
          { name: 'expires_at', type: 'bigint' },
        ],
        foreignKeys: [{ columnNames: ['tenant_id'], referencedTableName: 'tenant', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('tuf_metadata');
  }
}
