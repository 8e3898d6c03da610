import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Device keys that belong to one device (`single_device`, docs/decisions.md §4): for such a key a
 * `(device key, timestamp)` is accepted once. Existing keys are shared keys (`false`), the
 * default of the field. Plain `ALTER TABLE … ADD COLUMN`, the same statement on SQLite and PostgreSQL.
 */
export class SingleDeviceKeys1764300000000 implements MigrationInterface {
  name = 'SingleDeviceKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE device_key ADD COLUMN single_device boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('device_key', 'single_device');
  }
}
