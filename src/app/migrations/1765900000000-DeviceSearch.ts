import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A trigram index for the device list's text search (`?q=`, docs/decisions.md §9): part of the
 * name or of the identifier in any case, or hex digits of the mac without separators. Without it
 * every search read every device of the tenant twice (its `total`, then its page): 0.85 to 2.4 s
 * at a million devices on either engine.
 *
 * Three texts per device: the name; the identifier, only when it has a character other than an
 * upper-case hex digit or `:` (a controller id: a mac's text is found through its hex digits, and
 * leaving it out keeps imports fast); and the identifier without its `:` (the hex digits of a mac).
 * Every trigram costs about 20 µs a device to index on either engine, and a mac's 15 are a third
 * of a device's.
 *
 * - **SQLite**: `device_search`, an FTS5 table with the trigram tokenizer (case folded), one row
 *   per device (its rowid the device's id). Contentless (it holds only the index, no second copy
 *   of the names), with `contentless_delete` so that a row can be deleted by rowid. Triggers keep
 *   it in the transaction of every device registered, renamed or deleted; the frequent last-seen
 *   and version writes never run them.
 * - **PostgreSQL**: one GIN index of `pg_trgm` trigrams over the three expressions that the
 *   search's `LIKE` conditions name (the identifier's `NULL` for a mac). `pg_trgm` ships with
 *   PostgreSQL (contrib) and is a trusted extension, created by a role with `CREATE` on the
 *   database; a server without it, or a role without that right, keeps searching by reading every
 *   device, as before.
 *
 * A search shorter than three characters cannot use a trigram index; it reads the devices as before.
 */
export class DeviceSearch1765900000000 implements MigrationInterface {
  name = 'DeviceSearch1765900000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      // Installed already, or available and ours to create (a trusted extension: CREATE on the database).
      const [trgm] = (await q.query(`SELECT
          EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS installed,
          EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm')
            AND has_database_privilege(current_database(), 'CREATE') AS creatable`)) as { installed: boolean; creatable: boolean }[];
      if (!trgm.installed && !trgm.creatable) return;
      await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await q.query(`CREATE INDEX "IDX_device_search" ON device USING gin
        (LOWER(name) gin_trgm_ops, (CASE WHEN mac ~ '[^0-9A-F:]' THEN LOWER(mac) END) gin_trgm_ops, REPLACE(mac, ':', '') gin_trgm_ops)`);
      return;
    }
    const texts = (row: string) =>
      `${row}.name, CASE WHEN ${row}.mac GLOB '*[^0-9A-F:]*' THEN ${row}.mac ELSE '' END, REPLACE(${row}.mac, ':', '')`;
    await q.query(`CREATE VIRTUAL TABLE device_search USING fts5
      (name, identifier, hex, content = '', contentless_delete = 1, tokenize = 'trigram')`);
    await q.query(`INSERT INTO device_search (rowid, name, identifier, hex) SELECT d.id, ${texts('d')} FROM device d`);
    await q.query(`CREATE TRIGGER device_searched_insert AFTER INSERT ON device BEGIN
      INSERT INTO device_search (rowid, name, identifier, hex) VALUES (NEW.id, ${texts('NEW')}); END`);
    await q.query(`CREATE TRIGGER device_searched_delete AFTER DELETE ON device BEGIN
      DELETE FROM device_search WHERE rowid = OLD.id; END`);
    await q.query(`CREATE TRIGGER device_searched_update AFTER UPDATE OF name, mac ON device BEGIN
      DELETE FROM device_search WHERE rowid = OLD.id;
      INSERT INTO device_search (rowid, name, identifier, hex) VALUES (NEW.id, ${texts('NEW')}); END`);
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
