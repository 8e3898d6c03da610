import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many members each group has, by what they are (docs/decisions.md §10), kept by the database
 * itself as `rollout_wave_count` is: `group_member_count` holds one row per (group, registered,
 * device type) with its number of members. `registered` is 1 when a device of the group's tenant
 * has the member's identifier, and `device_type` is then that device's type (`''` when it is 0).
 * A rollout's targets, not-applicable and not-registered members are then a few rows of it instead
 * of two device lookups for every member of its group (0.7 s on SQLite and 2.3 s on PostgreSQL for
 * a group of a million: bench/RESULTS-1000000.md).
 *
 * Triggers keep it in the transaction of every change that moves a member between rows: a member
 * added or removed, a device registered or deleted, a device's tenant, identifier or type changed.
 * Each applies its changes as one upsert of signed deltas, in key order (PostgreSQL takes the count
 * rows' locks in that order, so two such statements cannot deadlock on them). SQLite runs them for
 * each row; PostgreSQL once per statement over its transition tables (a bulk import or a group of a
 * million members adds its counts once per group and kind), and for each row on the rare update of
 * a device's type or identifier. Filled from the members there are.
 */
export class GroupMemberCounts1765700000000 implements MigrationInterface {
  name = 'GroupMemberCounts1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE group_member_count (
      group_id integer NOT NULL REFERENCES device_group (id) ON DELETE CASCADE,
      registered smallint NOT NULL,
      device_type varchar(64) NOT NULL,
      members integer NOT NULL,
      PRIMARY KEY (group_id, registered, device_type))`);
    await q.query(apply(memberDeltas('group_member', 1)));
    const postgres = q.connection.options.type === 'postgres';
    if (!postgres) {
      const row = (alias: 'NEW' | 'OLD', columns: string[]) => `(SELECT ${columns.map((c) => `${alias}.${c} AS ${c}`).join(', ')})`;
      const member = (alias: 'NEW' | 'OLD') => row(alias, ['group_id', 'mac']);
      const device = (alias: 'NEW' | 'OLD') => row(alias, ['tenant_id', 'mac', 'device_type']);
      await q.query(`CREATE TRIGGER group_member_counted_insert AFTER INSERT ON group_member
        BEGIN ${apply(memberDeltas(member('NEW'), 1))}; END`);
      await q.query(`CREATE TRIGGER group_member_counted_delete AFTER DELETE ON group_member
        BEGIN ${apply(memberDeltas(member('OLD'), -1))}; END`);
      await q.query(`CREATE TRIGGER device_member_counted_insert AFTER INSERT ON device
        BEGIN ${apply(deviceDeltas(device('NEW'), 1))}; END`);
      await q.query(`CREATE TRIGGER device_member_counted_delete AFTER DELETE ON device
        BEGIN ${apply(deviceDeltas(device('OLD'), -1))}; END`);
      await q.query(`CREATE TRIGGER device_member_counted_update AFTER UPDATE OF tenant_id, mac, device_type ON device
        WHEN ${changed}
        BEGIN ${apply(`${deviceDeltas(device('OLD'), -1)} UNION ALL ${deviceDeltas(device('NEW'), 1)}`)}; END`);
      return;
    }
    const perStatement = async (table: 'group_member' | 'device', event: 'INSERT' | 'DELETE', body: string) => {
      const name = `${table === 'device' ? 'device_member' : table}_counted_${event.toLowerCase()}`;
      const rows = event === 'INSERT' ? 'NEW TABLE AS new_rows' : 'OLD TABLE AS old_rows';
      await q.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN NULL; END $$`);
      await q.query(`CREATE TRIGGER ${name} AFTER ${event} ON ${table}
        REFERENCING ${rows} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`);
    };
    await perStatement('group_member', 'INSERT', apply(memberDeltas('new_rows', 1)));
    await perStatement('group_member', 'DELETE', apply(memberDeltas('old_rows', -1)));
    await perStatement('device', 'INSERT', apply(deviceDeltas('new_rows', 1)));
    await perStatement('device', 'DELETE', apply(deviceDeltas('old_rows', -1)));
    const row = (alias: 'NEW' | 'OLD') =>
      `(SELECT ${alias}.tenant_id AS tenant_id, ${alias}.mac AS mac, ${alias}.device_type AS device_type)`;
    await q.query(`CREATE FUNCTION device_member_counted_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      ${apply(`${deviceDeltas(row('OLD'), -1)} UNION ALL ${deviceDeltas(row('NEW'), 1)}`)}; RETURN NULL; END $$`);
    // Row-level with a column list and a condition: the frequent updates of a device (its last-seen
    // time, its version) do not run it, and build no transition tables.
    await q.query(`CREATE TRIGGER device_member_counted_update AFTER UPDATE OF tenant_id, mac, device_type ON device
      FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION device_member_counted_update()`);
  }

  async down(q: QueryRunner): Promise<void> {
    const triggers = [
      ['group_member', 'group_member_counted_insert'],
      ['group_member', 'group_member_counted_delete'],
      ['device', 'device_member_counted_insert'],
      ['device', 'device_member_counted_delete'],
      ['device', 'device_member_counted_update'],
    ];
    const postgres = q.connection.options.type === 'postgres';
    for (const [table, name] of triggers) {
      // The PostgreSQL functions share the names of their triggers.
      await q.query(postgres ? `DROP TRIGGER ${name} ON ${table}` : `DROP TRIGGER ${name}`);
      if (postgres) await q.query(`DROP FUNCTION ${name}()`);
    }
    await q.query('DROP TABLE group_member_count');
  }
}

/** A device update that moves members between count rows. */
const changed = 'OLD.tenant_id <> NEW.tenant_id OR OLD.mac <> NEW.mac OR OLD.device_type <> NEW.device_type';

/**
 * `group_id, registered, device_type, delta` rows for the `group_member` rows of `members` (a table
 * or a subquery with `group_id` and `mac`), each counted `sign` times in the row of what it is now.
 * A member of a group that no longer exists (a cascade from the group's delete) counts nowhere.
 */
function memberDeltas(members: string, sign: 1 | -1): string {
  return `SELECT m.group_id AS group_id, CASE WHEN d.id IS NULL THEN 0 ELSE 1 END AS registered,
      COALESCE(d.device_type, '') AS device_type, ${sign} AS delta
    FROM ${members} m JOIN device_group g ON g.id = m.group_id
    LEFT JOIN device d ON d.tenant_id = g.tenant_id AND d.mac = m.mac`;
}

/**
 * Delta rows for the `device` rows of `devices` (with `tenant_id`, `mac` and `device_type`)
 * registered (`sign` 1) or gone (-1): each member of the device's tenant's groups with its
 * identifier moves from not registered to registered with its type, or back.
 */
function deviceDeltas(devices: string, sign: 1 | -1): string {
  const members = `FROM ${devices} d JOIN group_member m ON m.mac = d.mac JOIN device_group g ON g.id = m.group_id AND g.tenant_id = d.tenant_id`;
  return `SELECT m.group_id AS group_id, 1 AS registered, d.device_type AS device_type, ${sign} AS delta ${members}
    UNION ALL SELECT m.group_id AS group_id, 0 AS registered, '' AS device_type, ${-sign} AS delta ${members}`;
}

/** One upsert that adds the summed `deltas` to their count rows, in key order. */
function apply(deltas: string): string {
  return `INSERT INTO group_member_count (group_id, registered, device_type, members)
    SELECT x.group_id, x.registered, x.device_type, SUM(x.delta) FROM (${deltas}) x WHERE true
    GROUP BY x.group_id, x.registered, x.device_type HAVING SUM(x.delta) <> 0
    ORDER BY x.group_id, x.registered, x.device_type
    ON CONFLICT (group_id, registered, device_type) DO UPDATE SET members = group_member_count.members + excluded.members`;
}
