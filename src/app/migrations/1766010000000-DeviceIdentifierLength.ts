import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A device's name holds its identifier until an operator names it (docs/decisions.md §11): a
 * hawkBit controller id (up to 256 characters, `IDENTIFIER_MAX_LENGTH`) or a Mender identifier,
 * so `device.name` is as wide as `device.mac`. Every other column that stores a device identifier
 * (`device.mac`, `group_member.mac`, `firmware_download.mac`, `device_auth_set.identifier`) is
 * already 256 characters, ledger subjects (`device:<identifier>`) 320, and the failed-login
 * counters keep a digest of what they count; the other tables name a device by its id.
 *
 * SQLite ignores the length of a `varchar`: nothing to do there.
 */
export class DeviceIdentifierLength1766010000000 implements MigrationInterface {
  name = 'DeviceIdentifierLength1766010000000';

  async up(q: QueryRunner): Promise<void> {
    if (isPostgres(q)) await q.query('ALTER TABLE device ALTER COLUMN name TYPE varchar(256)');
  }

  /** Names longer than the old 128 characters are cut to them (the device keeps its identifier in `mac`). */
  async down(q: QueryRunner): Promise<void> {
    if (isPostgres(q)) await q.query('ALTER TABLE device ALTER COLUMN name TYPE varchar(128) USING LEFT(name, 128)');
  }
}

function isPostgres(q: QueryRunner): boolean {
  return q.connection.driver.options.type === 'postgres';
}
