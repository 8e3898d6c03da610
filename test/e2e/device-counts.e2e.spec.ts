import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { DeviceCounts1765800000000 } from '#src/app/migrations/1765800000000-DeviceCounts.js';
import { SCHEMA } from '#src/app/schema.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { query } from '#src/platform/database/sql.js';
import {
  createTestDatabase,
  post,
  request,
  startTestApp,
  TEST_ENGINE,
  type TestApp,
  type TestDatabase,
  type TestTenant,
} from '#test/support/harness.js';
import type { DeviceSummaryResponse, FleetSummaryResponse } from '#src/operator/dto/fleet.dto.js';
import type { Page } from '#src/operator/dto/paging.dto.js';

/**
 * The device counts the database keeps (migration DeviceCounts: `device_count`, triggers on
 * `device`), on the engine of the pass: after any sequence of registrations, deletes, and changes
 * of a device's version, type, tenant or last-seen time, each in statements of one or several rows,
 * and tenant deletes, they equal counting the devices by hand per tenant, version and type.
 */
describe(`device_count, kept by the database (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: DataSource;

  const MACS = ['02:00:00:00:00:01', '02:00:00:00:00:02', '02:00:00:00:00:03', '02:00:00:00:00:04', '02:00:00:00:00:05'];
  const TYPES = ['ESP32', 'ESP8266'];
  const VERSIONS = ['1.0.0', '1.1.0', '2.0.0'];

  const sql = <T = unknown>(text: string, params: unknown[] = []) => query<T>(db.manager, text, params);
  const list = (values: readonly unknown[], from: number) => values.map((_, i) => `$${i + from}`).join(', ');

  /** The kept counts (shards summed) and the devices counted from the table, as sorted `tenant/version/type=n` lines. */
  const both = async (): Promise<[string[], string[]]> => {
    type Count = { tenant_id: unknown; firmware_version: string; device_type: string; devices: unknown };
    const negative = await sql<unknown[]>('SELECT * FROM device_count WHERE devices < 0');
    assert.deepEqual(negative, [], 'no shard is below zero');
    const kept = await sql<Count[]>(
      `SELECT tenant_id, firmware_version, device_type, SUM(devices) AS devices FROM device_count
       GROUP BY tenant_id, firmware_version, device_type HAVING SUM(devices) <> 0`,
    );
    const devices = await sql<Omit<Count, 'devices'>[]>('SELECT tenant_id, firmware_version, device_type FROM device');
    const counted = new Map<string, number>();
    for (const d of devices) {
      const line = `${Number(d.tenant_id)}/${d.firmware_version}/${d.device_type}`;
      counted.set(line, (counted.get(line) ?? 0) + 1);
    }
    return [
      kept.map((row) => `${Number(row.tenant_id)}/${row.firmware_version}/${row.device_type}=${Number(row.devices)}`).sort(),
      [...counted].map(([line, n]) => `${line}=${n}`).sort(),
    ];
  };

  const tenantsBack = async () => {
    for (const tenant of [1, 2]) {
      await sql(`INSERT INTO tenant (id, name, customer_key, created_at) VALUES ($1, $2, 'k', 0) ON CONFLICT (id) DO NOTHING`, [
        tenant,
        `t${tenant}`,
      ]);
    }
  };

  before(async () => {
    database = await createTestDatabase();
    const file = join(database.dataDir, 'firmledger.sqlite');
    db = await new DataSource(dataSourceOptions({ databasePath: file, databaseUrl: database.env.DATABASE_URL }, SCHEMA)).initialize();
    await tenantsBack();
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const macs = fc.uniqueArray(fc.constantFrom(...MACS), { minLength: 1, maxLength: 3 });
  const tenant = fc.constantFrom(1, 2);
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('register' as const),
      tenant,
      macs,
      type: fc.constantFrom(...TYPES),
      version: fc.constantFrom(...VERSIONS),
    }),
    fc.record({ kind: fc.constant('unregister' as const), tenant, macs }),
    fc.record({ kind: fc.constant('retype' as const), tenant, macs, type: fc.constantFrom(...TYPES) }),
    fc.record({ kind: fc.constant('report' as const), tenant, macs, version: fc.constantFrom(...VERSIONS) }),
    fc.record({ kind: fc.constant('seen' as const), tenant, macs, at: fc.integer({ min: 1, max: 1e12 }) }),
    fc.record({ kind: fc.constant('move' as const), from: tenant, mac: fc.constantFrom(...MACS) }),
    fc.record({ kind: fc.constant('drop-tenant' as const), tenant }),
  );

  it('equal counting every device after any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
        await sql('DELETE FROM device');
        await tenantsBack();
        for (const o of ops) {
          if (o.kind === 'register') {
            await sql(
              `INSERT INTO device (tenant_id, mac, name, firmware_version, device_type, created_at)
               VALUES ${o.macs.map((_, i) => `($1, $${i + 4}, 'd', $3, $2, 0)`).join(', ')} ON CONFLICT (tenant_id, mac) DO NOTHING`,
              [o.tenant, o.type, o.version, ...o.macs],
            );
          } else if (o.kind === 'unregister') {
            await sql(`DELETE FROM device WHERE tenant_id = $1 AND mac IN (${list(o.macs, 2)})`, [o.tenant, ...o.macs]);
          } else if (o.kind === 'retype') {
            await sql(`UPDATE device SET device_type = $2 WHERE tenant_id = $1 AND mac IN (${list(o.macs, 3)})`, [
              o.tenant,
              o.type,
              ...o.macs,
            ]);
          } else if (o.kind === 'report') {
            // As a device's report of a new version writes it: with its last-seen time.
            await sql(`UPDATE device SET firmware_version = $2, last_seen_at = $3 WHERE tenant_id = $1 AND mac IN (${list(o.macs, 4)})`, [
              o.tenant,
              o.version,
              Date.now(),
              ...o.macs,
            ]);
          } else if (o.kind === 'seen') {
            await sql(`UPDATE device SET last_seen_at = $2 WHERE tenant_id = $1 AND mac IN (${list(o.macs, 3)})`, [
              o.tenant,
              o.at,
              ...o.macs,
            ]);
          } else if (o.kind === 'move') {
            await sql(
              `UPDATE device SET tenant_id = $3 WHERE tenant_id = $1 AND mac = $2
                 AND NOT EXISTS (SELECT 1 FROM device o WHERE o.tenant_id = $3 AND o.mac = $2)`,
              [o.from, o.mac, 3 - o.from],
            );
          } else {
            await sql('DELETE FROM tenant WHERE id = $1', [o.tenant]); // its devices go with it
            await tenantsBack();
          }
        }
        const [kept, counted] = await both();
        assert.deepEqual(kept, counted);
      }),
      { numRuns: 100 },
    );
  });

  it('are filled from the devices there are when the migration runs again (down, then up)', async () => {
    await sql('DELETE FROM device');
    await tenantsBack();
    await sql(
      `INSERT INTO device (tenant_id, mac, name, firmware_version, device_type, created_at) VALUES
         (1, $1, 'd', '1.0.0', 'ESP32', 0), (1, $2, 'd', '1.0.0', 'ESP32', 0), (1, $3, 'd', '2.0.0', 'ESP8266', 0), (2, $1, 'd', '1.0.0', 'ESP32', 0)`,
      MACS.slice(0, 3),
    );
    const [kept, counted] = await both();
    assert.deepEqual(kept, ['1/1.0.0/ESP32=2', '1/2.0.0/ESP8266=1', '2/1.0.0/ESP32=1']);
    const runner = db.createQueryRunner();
    try {
      await new DeviceCounts1765800000000().down(runner);
      await new DeviceCounts1765800000000().up(runner);
    } finally {
      await runner.release();
    }
    assert.deepEqual((await both())[0], kept);
    assert.deepEqual(kept, counted);
    await sql(
      `INSERT INTO device (tenant_id, mac, name, firmware_version, device_type, created_at) VALUES (1, '02:00:00:00:00:99', 'd', '9.9', 'ESP32', 0)`,
    );
    const [afterInsert, recounted] = await both();
    assert.deepEqual(afterInsert, recounted);
    assert.notDeepEqual(afterInsert, kept);
  });
});

/**
 * What an operator reads of those counts over HTTP (docs/decisions.md §9): the fleet overview and
 * the `total` of device lists agree with the devices the lists show, as devices register, are seen
 * at different times, report new versions and are deleted; with few devices seen in the last day
 * and with most (the overview counts either side of that time).
 */
describe('the fleet overview and device list totals from the kept counts', () => {
  let app: TestApp;
  let bearer: string;
  let esp32: TestTenant;
  let esp8266: TestTenant;
  const mac = (n: number) => `02:00:00:00:01:${n.toString(16).padStart(2, '0').toUpperCase()}`;
  const DEVICES = 10;
  const HOUR = 3600;

  const operator = async <T>(path: string): Promise<T> => {
    const answer = await request('GET', `${app.urls.operator}/tenants/${esp32.name}${path}`, { bearer });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as T;
  };
  /** Every device a list shows, walked three at a time by cursor, with the total each page claims. */
  const walk = async (filter: string): Promise<{ devices: DeviceSummaryResponse[]; totals: number[] }> => {
    const devices: DeviceSummaryResponse[] = [];
    const totals = new Set<number>();
    let after: string | null = '';
    for (let pages = 0; after !== null && pages <= DEVICES; pages++) {
      const page: Page<DeviceSummaryResponse> & { next: string | null } = await operator(
        `/devices?per_page=3${filter}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      );
      devices.push(...page.items);
      totals.add(page.total);
      after = page.next;
    }
    return { devices, totals: [...totals] };
  };
  /** Each device polls for its next rollout at the clock's time, reporting `version`. */
  const poll = async (tenant: TestTenant, numbers: number[], version: string) => {
    const token = await app.login(tenant);
    for (const n of numbers) {
      const answer = await post(`${app.urls.vc}/api/device/next/rollout`, { mac: mac(n), firmware_version: version }, token);
      assert.equal(answer.status, 200, answer.text);
    }
  };
  /** The overview as the device list shows the fleet: counted from every device's version, type and last-seen time. */
  const fromList = async (now: number) => {
    const { devices } = await walk('');
    const since = (ms: number) => devices.filter((d) => d.last_seen_at !== null && Date.parse(d.last_seen_at) >= now - ms);
    const versions = new Map<string, { firmware_version: string; device_type: string; devices: number; seen_last_day: number }>();
    for (const d of devices) {
      const key = `${d.firmware_version}/${d.device_type}`;
      const row = versions.get(key) ?? { firmware_version: d.firmware_version, device_type: d.device_type, devices: 0, seen_last_day: 0 };
      row.devices++;
      if (d.last_seen_at !== null && Date.parse(d.last_seen_at) >= now - 86_400_000) row.seen_last_day++;
      versions.set(key, row);
    }
    return {
      devices: devices.length,
      seen_last_hour: since(3_600_000).length,
      seen_last_day: since(86_400_000).length,
      versions: [...versions.values()].sort(
        (a, b) => b.devices - a.devices || byCodeUnit(a.firmware_version, b.firmware_version) || byCodeUnit(a.device_type, b.device_type),
      ),
      versions_total: versions.size,
    };
  };
  const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const overview = async () => {
    const { at, ...summary } = await operator<FleetSummaryResponse>('/fleet');
    assert.equal(Date.parse(at), app.clock.now());
    return summary;
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken();
    esp32 = await app.createTenant(undefined, 'ESP32');
    esp8266 = await app.createDeviceKey(esp32, 'ESP8266');
    const [a, b] = [await app.login(esp32), await app.login(esp8266)];
    for (let n = 0; n < DEVICES; n++) {
      const body = { mac: mac(n), name: `device ${n}`, firmware_version: n % 3 === 0 ? '2.0' : '1.0' };
      const answer = await post(`${app.urls.vc}/api/device/register`, body, n % 2 === 0 ? a : b);
      assert.equal(answer.status, 200, answer.text);
    }
    // One more, imported and never seen.
    const imported = await request('POST', `${app.urls.operator}/tenants/${esp32.name}/devices/import`, {
      bearer,
      rawBody: `mac,device_type,firmware_version\n${mac(DEVICES)},ESP32,1.0\n`,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(imported.status, 200, imported.text);
    await app.createGroup(esp32, 'north', [mac(0), mac(1), mac(2), mac(3), mac(9), '02:00:00:00:09:99']);
  });
  after(() => app?.close());

  it('counts devices seen in the last hour and day per version and type, with few seen and with most', async () => {
    // Registered a day and more ago; four seen since, one of them within the hour. Devices 0, 3, 6
    // and 9 registered on 2.0, the others on 1.0; even ones are ESP32, odd ones ESP8266; the
    // imported one (ESP32, 1.0) is never seen.
    app.clock.advance(25 * HOUR);
    await poll(esp32, [0, 2], '2.0');
    await poll(esp8266, [1], '1.0');
    app.clock.advance(2 * HOUR);
    await poll(esp8266, [3], '1.1'); // a new version: its count moves
    const few = await overview();
    assert.deepEqual({ devices: few.devices, hour: few.seen_last_hour, day: few.seen_last_day }, { devices: DEVICES + 1, hour: 1, day: 4 });
    assert.deepEqual(few, await fromList(app.clock.now()));

    // Most seen within the day: the other side of the count.
    await poll(esp32, [4, 6, 8], '1.0');
    await poll(esp8266, [5, 7], '1.0');
    const most = await overview();
    assert.deepEqual({ hour: most.seen_last_hour, day: most.seen_last_day }, { hour: 6, day: 9 });
    assert.deepEqual(most, await fromList(app.clock.now()));
    assert.deepEqual(
      most.versions.map((v) => `${v.firmware_version} ${v.device_type} ${v.devices}/${v.seen_last_day}`),
      ['1.0 ESP32 4/3', '1.0 ESP8266 3/3', '2.0 ESP32 2/2', '1.1 ESP8266 1/1', '2.0 ESP8266 1/0'],
    );
  });

  it('gives every filtered list the total of the devices it shows', async () => {
    const filters = [
      '',
      '&firmware_version=1.0',
      '&device_type=ESP8266',
      '&firmware_version=2.0&device_type=ESP32',
      '&firmware_version=3.0',
      '&group=north',
      '&group=north&device_type=ESP32',
      '&group=north&firmware_version=1.0',
      `&seen_since=${encodeURIComponent(new Date(app.clock.now() - HOUR * 1000).toISOString())}`,
      `&not_seen_since=${encodeURIComponent(new Date(app.clock.now() - HOUR * 1000).toISOString())}`,
      `&not_seen_since=${encodeURIComponent(new Date(app.clock.now() - HOUR * 1000).toISOString())}&device_type=ESP32`,
    ];
    const check = async () => {
      for (const filter of filters) {
        const { devices, totals } = await walk(filter);
        assert.deepEqual(totals, [devices.length], `${filter || 'no filter'}: ${devices.map((d) => d.mac).join(' ')}`);
      }
    };
    await check();
    assert.equal((await walk('&group=north')).devices.length, 5, 'the member without a device is not listed');
    // A device deleted, another reports a new version: every total follows.
    const deleted = await request('DELETE', `${app.urls.vc}/api/device/`, { body: { mac: mac(9) }, token: await app.login(esp8266) });
    assert.equal(deleted.status, 200, deleted.text);
    await poll(esp32, [2], '3.0');
    await check();
    assert.deepEqual(
      (await walk('&firmware_version=3.0')).devices.map((d) => d.mac),
      [mac(2)],
    );
    assert.equal((await operator<FleetSummaryResponse>('/fleet')).devices, DEVICES);
  });
});
