import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Device keys that are hawkBit DDI gateway tokens (`ddi_gateway`, docs/decisions.md §12): only a
 * key created or flagged as one admits DDI devices with `Authorization: GatewayToken`. Existing keys
 * are not (`false`): an installation whose DDI devices poll with a gateway token flags that key
 * (`firmledger device-key ddi-gateway <key> on`). Plain `ALTER TABLE … ADD COLUMN`, the same
 * statement on SQLite and PostgreSQL.
 */
export class DeviceKeyGateway1766000000000 implements MigrationInterface {
  name = 'DeviceKeyGateway1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE device_key ADD COLUMN ddi_gateway boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('device_key', 'ddi_gateway');
  }
}
