import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Devices named by an identifier (docs/decisions.md §11): the `mac` columns of `device`,
 * `group_member` and `firmware_download` hold a hardware address or a hawkBit controller id (up to
 * 256 characters), and ledger subjects (`device:<identifier>`) grow with them. A device created by
 * an operator or registered with a gateway token has no device key of its own
 * (`device.device_key_id`, and the downloads it makes, may be NULL). New on `device`: the
 * protocol it speaks (`asvin` for every existing device), the hash of its target token and the
 * attributes it reported (JSON).
 *
 * SQLite ignores the length of a `varchar`; only the two columns that become nullable need their
 * tables rebuilt there (TypeORM copies the rows, with foreign keys off during migrations).
 */
export class DeviceIdentifiers1764800000000 implements MigrationInterface {
  name = 'DeviceIdentifiers1764800000000';

  async up(q: QueryRunner): Promise<void> {
    if (isPostgres(q)) {
      await q.query('ALTER TABLE device ALTER COLUMN mac TYPE varchar(256), ALTER COLUMN device_key_id DROP NOT NULL');
      await q.query('ALTER TABLE group_member ALTER COLUMN mac TYPE varchar(256)');
      await q.query('ALTER TABLE firmware_download ALTER COLUMN mac TYPE varchar(256), ALTER COLUMN device_key_id DROP NOT NULL');
      await q.query('ALTER TABLE ledger_entry ALTER COLUMN subject TYPE varchar(320)');
    } else {
      await widen(q, 'device');
      await widen(q, 'firmware_download');
    }
    await q.query(`ALTER TABLE device ADD COLUMN protocol varchar(16) NOT NULL DEFAULT 'asvin'`);
    await q.query('ALTER TABLE device ADD COLUMN target_token_hash varchar(64)');
    await q.query('ALTER TABLE device ADD COLUMN attributes text');
  }

  /**
   * Removes what the old schema cannot hold: devices (with their states, successes and downloads)
   * and group members named by a controller id, devices and downloads without a device key. The
   * ledger's subject column stays wide: ledger entries are never rewritten. On SQLite the columns
   * keep their new definitions (a revert runs with foreign keys on, so rebuilding `device` would
   * delete every row that references it; SQLite ignores a `varchar`'s length, and the remaining
   * rows all have a device key).
   */
  async down(q: QueryRunner): Promise<void> {
    for (const column of ['attributes', 'target_token_hash', 'protocol']) await q.query(`ALTER TABLE device DROP COLUMN ${column}`);
    await q.query('DELETE FROM firmware_download WHERE device_key_id IS NULL OR LENGTH(mac) > 23');
    await q.query('DELETE FROM device WHERE device_key_id IS NULL OR LENGTH(mac) > 23');
    await q.query('DELETE FROM group_member WHERE LENGTH(mac) > 23');
    if (isPostgres(q)) {
      await q.query('ALTER TABLE device ALTER COLUMN mac TYPE varchar(23), ALTER COLUMN device_key_id SET NOT NULL');
      await q.query('ALTER TABLE group_member ALTER COLUMN mac TYPE varchar(23)');
      await q.query('ALTER TABLE firmware_download ALTER COLUMN mac TYPE varchar(23), ALTER COLUMN device_key_id SET NOT NULL');
    }
  }
}

function isPostgres(q: QueryRunner): boolean {
  return q.connection.driver.options.type === 'postgres';
}

/**
 * SQLite: `mac` up to 256 characters and `device_key_id` nullable, in one rebuild of `table`
 * (migrations run with foreign keys off: the rows that reference it stay).
 */
async function widen(q: QueryRunner, table: 'device' | 'firmware_download'): Promise<void> {
  const current = await q.getTable(table);
  if (!current) throw new Error(`table ${table} is missing`);
  const mac = current.findColumnByName('mac')!;
  const key = current.findColumnByName('device_key_id')!;
  await q.changeColumns(table, [
    { oldColumn: mac, newColumn: new TableColumn({ ...mac, length: '256' }) },
    { oldColumn: key, newColumn: new TableColumn({ ...key, isNullable: true }) },
  ]);
}
