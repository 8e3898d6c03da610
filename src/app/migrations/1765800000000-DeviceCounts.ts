import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * How many devices each tenant has per firmware version and device type (docs/decisions.md §9),
 * kept by the database as `group_member_count` is: `device_count` holds one row per (tenant,
 * firmware version, device type, shard) with its number of devices, the shard being the device's
 * id modulo {@link DEVICE_COUNT_SHARDS}. Readers sum the shards. The fleet overview and the `total`
 * of a device list filtered by nothing, version or type are then a few rows instead of a count of
 * every device of the tenant (0.8 s on SQLite at a million devices for the overview, 0.15 s on
 * PostgreSQL for each device list page).
 *
 * The shards spread a tenant's count over several rows: on PostgreSQL a row trigger's upsert holds
 * its row until the transaction commits, and every success report that changes a device's version
 * would otherwise wait for the one row of the tenant's old and new version.
 *
 * Triggers keep it in the transaction of every device registered or deleted (per statement on
 * PostgreSQL, over its transition tables: an import adds its counts once per row of this table), and
 * of the rare change of a device's tenant, version or type (per row, with a column list and a
 * condition, so the frequent last-seen writes never run it). Rows that fall to 0 stay; readers skip
 * them. No foreign key: a tenant's delete cascades to its devices, whose triggers then count down.
 *
 * The index `(tenant_id, last_seen_at)` of the seen filters becomes `(tenant_id, last_seen_at,
 * firmware_version, device_type)`: the same one index entry a last-seen write moves, and the
 * overview's devices seen in the last day per version and type become a range of it (covering).
 */
export class DeviceCounts1765800000000 implements MigrationInterface {
  name = 'DeviceCounts1765800000000';

  private readonly before = new TableIndex({ name: 'IDX_device_tenant_last_seen', columnNames: ['tenant_id', 'last_seen_at'] });
  private readonly after = new TableIndex({
    name: 'IDX_device_tenant_last_seen_version',
    columnNames: ['tenant_id', 'last_seen_at', 'firmware_version', 'device_type'],
  });

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE device_count (
      tenant_id integer NOT NULL,
      firmware_version varchar(64) NOT NULL,
      device_type varchar(64) NOT NULL,
      shard smallint NOT NULL,
      devices integer NOT NULL,
      PRIMARY KEY (tenant_id, firmware_version, device_type, shard))`);
    await q.query(apply(deltas('device', 1)));
    await q.createIndex('device', this.after);
    await q.dropIndex('device', this.before.name!);
    const row = (alias: 'NEW' | 'OLD') =>
      `(SELECT ${alias}.id AS id, ${alias}.tenant_id AS tenant_id, ${alias}.firmware_version AS firmware_version, ${alias}.device_type AS device_type)`;
    const moved = apply(`${deltas(row('OLD'), -1)} UNION ALL ${deltas(row('NEW'), 1)}`);
    if (q.connection.options.type !== 'postgres') {
      await q.query(`CREATE TRIGGER device_counted_insert AFTER INSERT ON device BEGIN ${apply(deltas(row('NEW'), 1))}; END`);
      await q.query(`CREATE TRIGGER device_counted_delete AFTER DELETE ON device BEGIN ${apply(deltas(row('OLD'), -1))}; END`);
      await q.query(`CREATE TRIGGER device_counted_update AFTER UPDATE OF tenant_id, firmware_version, device_type ON device
        WHEN ${changed} BEGIN ${moved}; END`);
      return;
    }
    for (const [event, rows, sign] of [
      ['INSERT', 'NEW TABLE AS new_rows', 1],
      ['DELETE', 'OLD TABLE AS old_rows', -1],
    ] as const) {
      const name = `device_counted_${event.toLowerCase()}`;
      await q.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        ${apply(deltas(sign === 1 ? 'new_rows' : 'old_rows', sign))}; RETURN NULL; END $$`);
      await q.query(`CREATE TRIGGER ${name} AFTER ${event} ON device REFERENCING ${rows} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`);
    }
    await q.query(`CREATE FUNCTION device_counted_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${moved}; RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER device_counted_update AFTER UPDATE OF tenant_id, firmware_version, device_type ON device
      FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION device_counted_update()`);
  }

  async down(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    for (const name of ['device_counted_insert', 'device_counted_delete', 'device_counted_update']) {
      // The PostgreSQL functions share the names of their triggers.
      await q.query(postgres ? `DROP TRIGGER ${name} ON device` : `DROP TRIGGER ${name}`);
      if (postgres) await q.query(`DROP FUNCTION ${name}()`);
    }
    await q.createIndex('device', this.before);
    await q.dropIndex('device', this.after.name!);
    await q.query('DROP TABLE device_count');
  }
}

/** Rows of `device_count` one tenant, version and type are spread over (by device id). */
export const DEVICE_COUNT_SHARDS = 8;

/** A device update that moves it between count rows. */
const changed = 'OLD.tenant_id <> NEW.tenant_id OR OLD.firmware_version <> NEW.firmware_version OR OLD.device_type <> NEW.device_type';

/** `tenant_id, firmware_version, device_type, shard, delta` rows for the devices of `devices` (a table or a subquery), each `sign` times. */
function deltas(devices: string, sign: 1 | -1): string {
  return `SELECT d.tenant_id AS tenant_id, d.firmware_version AS firmware_version, d.device_type AS device_type,
      d.id % ${DEVICE_COUNT_SHARDS} AS shard, ${sign} AS delta FROM ${devices} d`;
}

/** One upsert that adds the summed `deltas` to their count rows, in key order (no deadlock between two of them on PostgreSQL). */
function apply(deltaRows: string): string {
  return `INSERT INTO device_count (tenant_id, firmware_version, device_type, shard, devices)
    SELECT x.tenant_id, x.firmware_version, x.device_type, x.shard, SUM(x.delta) FROM (${deltaRows}) x WHERE true
    GROUP BY x.tenant_id, x.firmware_version, x.device_type, x.shard HAVING SUM(x.delta) <> 0
    ORDER BY x.tenant_id, x.firmware_version, x.device_type, x.shard
    ON CONFLICT (tenant_id, firmware_version, device_type, shard) DO UPDATE SET devices = device_count.devices + excluded.devices`;
}
