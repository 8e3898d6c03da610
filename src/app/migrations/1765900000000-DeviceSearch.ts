import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A trigram index for the device list's text search (`?q=`, docs/decisions.md §9): part of the
 * name or of the identifier in any case, or hex digits of the mac without separators. Without it
 * every search read every device of the tenant twice (its `total`, then its page): 0.85 to 2.4 s
 * at a million devices on either engine.
 *
 * - **SQLite**: `device_search`, an FTS5 table with the trigram tokenizer (case folded), one row
 *   per device (its rowid the device's id) with the name, the identifier and the identifier's hex
 *   digits (`:` removed). Contentless (it holds only the index, no second copy of the names), with
 *   `contentless_delete` so that a row can be deleted by rowid. Triggers keep it in the transaction
 *   of every device registered, renamed or deleted; the frequent last-seen and version writes
 *   never run them.
 * - **PostgreSQL**: one GIN index of `pg_trgm` trigrams over the three expressions the search's
 *   `LIKE` conditions name (`LOWER(name)`, `LOWER(mac)`, `REPLACE(mac, ':', '')`). `pg_trgm` ships
 *   with PostgreSQL (contrib) and is a trusted extension; a server without it keeps searching by
 *   reading every device, as before.
 *
 * A search shorter than three characters cannot use a trigram index; it reads the devices as before.
 */
export class DeviceSearch1765900000000 implements MigrationInterface {
  name = 'DeviceSearch1765900000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      const available = (await q.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'`)) as unknown[];
      if (available.length === 0) return;
      await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await q.query(`CREATE INDEX "IDX_device_search" ON device USING gin
        (LOWER(name) gin_trgm_ops, LOWER(mac) gin_trgm_ops, REPLACE(mac, ':', '') gin_trgm_ops)`);
      return;
    }
    await q.query(`CREATE VIRTUAL TABLE device_search USING fts5
      (name, mac, hex, content = '', contentless_delete = 1, tokenize = 'trigram')`);
    await q.query(`INSERT INTO device_search (rowid, name, mac, hex) SELECT id, name, mac, REPLACE(mac, ':', '') FROM device`);
    await q.query(`CREATE TRIGGER device_searched_insert AFTER INSERT ON device BEGIN
      INSERT INTO device_search (rowid, name, mac, hex) VALUES (NEW.id, NEW.name, NEW.mac, REPLACE(NEW.mac, ':', '')); END`);
    await q.query(`CREATE TRIGGER device_searched_delete AFTER DELETE ON device BEGIN
      DELETE FROM device_search WHERE rowid = OLD.id; END`);
    await q.query(`CREATE TRIGGER device_searched_update AFTER UPDATE OF name, mac ON device BEGIN
      DELETE FROM device_search WHERE rowid = OLD.id;
      INSERT INTO device_search (rowid, name, mac, hex) VALUES (NEW.id, NEW.name, NEW.mac, REPLACE(NEW.mac, ':', '')); END`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP INDEX IF EXISTS "IDX_device_search"');
      return;
    }
    for (const name of ['device_searched_insert', 'device_searched_delete', 'device_searched_update'])
      await q.query(`DROP TRIGGER ${name}`);
    await q.query('DROP TABLE device_search');
  }
}
