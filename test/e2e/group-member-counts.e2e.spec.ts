import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { GroupMemberCounts1765700000000 } from '#src/app/migrations/1765700000000-GroupMemberCounts.js';
import { SCHEMA } from '#src/app/schema.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { query } from '#src/platform/database/sql.js';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '#test/support/harness.js';

/**
 * The member counts the database keeps (migration GroupMemberCounts: `group_member_count`, triggers
 * on `group_member` and `device`), on the engine of the pass: after any sequence of member adds and
 * removals, registrations, deletes and changes of devices, and group deletes, each in statements of
 * one or several rows, they equal classing every member by hand (registered in its group's tenant
 * or not, and of which device type). PostgreSQL keeps them per statement, SQLite per row.
 */
describe(`group_member_count, kept by the database (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: DataSource;

  const MACS = ['02:00:00:00:00:01', '02:00:00:00:00:02', '02:00:00:00:00:03', '02:00:00:00:00:04', '02:00:00:00:00:05'];
  const TYPES = ['ESP32', 'ESP8266'];
  /** Group id → its tenant: two groups of tenant 1, one of tenant 2. */
  const GROUPS = new Map([
    [1, 1],
    [2, 1],
    [3, 2],
  ]);

  const sql = <T = unknown>(text: string, params: unknown[] = []) => query<T>(db.manager, text, params);
  const list = (values: readonly unknown[], from: number) => values.map((_, i) => `$${i + from}`).join(', ');

  /** The kept counts, and the members classed one by one from the tables, as sorted `group/registered/type=n` lines. */
  const both = async (): Promise<[string[], string[]]> => {
    type Count = { group_id: unknown; registered: unknown; device_type: string; members: unknown };
    const kept = await sql<Count[]>('SELECT group_id, registered, device_type, members FROM group_member_count WHERE members <> 0');
    const negative = kept.filter((row) => Number(row.members) < 0);
    assert.deepEqual(negative, [], 'no count is below zero');
    const groups = await sql<{ id: unknown; tenant_id: unknown }[]>('SELECT id, tenant_id FROM device_group');
    const members = await sql<{ group_id: unknown; mac: string }[]>('SELECT group_id, mac FROM group_member');
    const devices = await sql<{ tenant_id: unknown; mac: string; device_type: string }[]>('SELECT tenant_id, mac, device_type FROM device');
    const classed = new Map<string, number>();
    for (const member of members) {
      const tenant = groups.find((g) => Number(g.id) === Number(member.group_id))?.tenant_id;
      const device = devices.find((d) => Number(d.tenant_id) === Number(tenant) && d.mac === member.mac);
      const line = `${Number(member.group_id)}/${device ? 1 : 0}/${device?.device_type ?? ''}`;
      classed.set(line, (classed.get(line) ?? 0) + 1);
    }
    return [
      kept.map((row) => `${Number(row.group_id)}/${Number(row.registered)}/${row.device_type}=${Number(row.members)}`).sort(),
      [...classed].map(([line, n]) => `${line}=${n}`).sort(),
    ];
  };

  before(async () => {
    database = await createTestDatabase();
    const file = join(database.dataDir, 'firmledger.sqlite');
    db = await new DataSource(dataSourceOptions({ databasePath: file, databaseUrl: database.env.DATABASE_URL }, SCHEMA)).initialize();
    for (const tenant of [1, 2]) {
      await sql(`INSERT INTO tenant (id, name, customer_key, created_at) VALUES ($1, $2, 'k', 0)`, [tenant, `t${tenant}`]);
    }
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const macs = fc.uniqueArray(fc.constantFrom(...MACS), { minLength: 1, maxLength: 3 });
  const group = fc.constantFrom(...GROUPS.keys());
  const tenant = fc.constantFrom(1, 2);
  const op = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), group, macs }),
    fc.record({ kind: fc.constant('remove' as const), group, macs }),
    fc.record({ kind: fc.constant('register' as const), tenant, macs, type: fc.constantFrom(...TYPES) }),
    fc.record({ kind: fc.constant('unregister' as const), tenant, macs }),
    fc.record({ kind: fc.constant('retype' as const), tenant, macs, type: fc.constantFrom(...TYPES) }),
    fc.record({ kind: fc.constant('readdress' as const), tenant, from: fc.constantFrom(...MACS), to: fc.constantFrom(...MACS) }),
    fc.record({ kind: fc.constant('drop-group' as const), group }),
  );

  /** Makes sure the groups exist (a `drop-group` deletes one, its members and counts with it, and creates it anew). */
  const groupsBack = async () => {
    for (const [id, tenantId] of GROUPS) {
      await sql(`INSERT INTO device_group (id, tenant_id, name, created_at) VALUES ($1, $2, $3, 0) ON CONFLICT (id) DO NOTHING`, [
        id,
        tenantId,
        `g${id}`,
      ]);
    }
  };

  it('equal classing every member after any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
        // Each run from no members and no devices (the deletes are changes the counts follow too).
        await sql('DELETE FROM group_member');
        await sql('DELETE FROM device');
        await groupsBack();
        for (const o of ops) {
          if (o.kind === 'add') {
            await sql(
              `INSERT INTO group_member (group_id, mac) VALUES ${o.macs.map((_, i) => `($1, $${i + 2})`).join(', ')} ON CONFLICT DO NOTHING`,
              [o.group, ...o.macs],
            );
          } else if (o.kind === 'remove') {
            await sql(`DELETE FROM group_member WHERE group_id = $1 AND mac IN (${list(o.macs, 2)})`, [o.group, ...o.macs]);
          } else if (o.kind === 'register') {
            await sql(
              `INSERT INTO device (tenant_id, mac, name, firmware_version, device_type, created_at)
               VALUES ${o.macs.map((_, i) => `($1, $${i + 3}, 'd', '1.0.0', $2, 0)`).join(', ')} ON CONFLICT (tenant_id, mac) DO NOTHING`,
              [o.tenant, o.type, ...o.macs],
            );
          } else if (o.kind === 'unregister') {
            await sql(`DELETE FROM device WHERE tenant_id = $1 AND mac IN (${list(o.macs, 2)})`, [o.tenant, ...o.macs]);
          } else if (o.kind === 'retype') {
            await sql(`UPDATE device SET device_type = $2 WHERE tenant_id = $1 AND mac IN (${list(o.macs, 3)})`, [
              o.tenant,
              o.type,
              ...o.macs,
            ]);
          } else if (o.kind === 'readdress') {
            await sql(
              `UPDATE device SET mac = $3 WHERE tenant_id = $1 AND mac = $2
                 AND NOT EXISTS (SELECT 1 FROM device o WHERE o.tenant_id = $1 AND o.mac = $3)`,
              [o.tenant, o.from, o.to],
            );
          } else {
            await sql('DELETE FROM device_group WHERE id = $1', [o.group]);
            await groupsBack(); // a new, empty group of the same id
          }
        }
        const [kept, classed] = await both();
        assert.deepEqual(kept, classed);
      }),
      { numRuns: 100 },
    );
  });

  it('are filled from the members there are when the migration runs again (down, then up)', async () => {
    // Members of its own: whatever the property's last run left may be nothing to count.
    await sql('DELETE FROM group_member');
    await sql('DELETE FROM device');
    await groupsBack();
    await sql(
      `INSERT INTO device (tenant_id, mac, name, firmware_version, device_type, created_at) VALUES (1, $1, 'd', '1.0.0', 'ESP32', 0)`,
      [MACS[0]],
    );
    await sql('INSERT INTO group_member (group_id, mac) VALUES (1, $1), (1, $2), (3, $1)', [MACS[0], MACS[1]]);
    const [kept, classed] = await both();
    assert.deepEqual(kept, ['1/0/=1', '1/1/ESP32=1', '3/0/=1']);
    const runner = db.createQueryRunner();
    try {
      await new GroupMemberCounts1765700000000().down(runner);
      await new GroupMemberCounts1765700000000().up(runner);
    } finally {
      await runner.release();
    }
    assert.deepEqual((await both())[0], kept);
    assert.deepEqual(kept, classed);
    // The triggers are back: a new member counts.
    await sql(`INSERT INTO group_member (group_id, mac) VALUES (1, '02:00:00:00:00:99')`);
    const [after, reclassed] = await both();
    assert.deepEqual(after, reclassed);
    assert.notDeepEqual(after, kept);
  });
});
