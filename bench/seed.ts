import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Readable } from 'node:stream';
import pg from 'pg';
import type { EntityManager } from 'typeorm';
import { CliModule } from '#src/cli/cli.module.js';
import { loadConfig, prepareDataDir } from '#src/platform/config/app-config.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { DEVICE_TYPES, FIRMWARE_VERSIONS, fleetDevice, GROUPS, ROLLOUTS, type DeviceType, type FleetProtocol } from './fleet.js';

/** A seeded tenant as the benchmark uses it. */
export interface SeededTenant {
  id: number;
  name: string;
  customerKey: string;
  /** One device key per device type: the asvin devices of that type registered with it. */
  typeKeys: Record<DeviceType, string>;
  /**
   * One hawkBit DDI gateway token per device type (a device key flagged `ddi_gateway`,
   * docs/decisions.md §12): the DDI devices of that type registered with it on their first poll.
   */
  gatewayKeys: Record<DeviceType, string>;
  /** Extra ESP32 keys for the login scenario (a `(key, timestamp)` pair logs in once). */
  loginKeys: string[];
  devices: number;
  /** First three mac octets of the tenant's devices. */
  macPrefix: string;
}

/** What {@link seed} made. */
export interface Seeded {
  fleet: SeededTenant;
  small: SeededTenant;
  /** Group memberships of the large tenant. */
  memberships: number;
  seconds: number;
  /** The longest start of one of the rollouts (every target of its group given its state and wave), seconds. */
  longestStartSeconds: number;
  /** Targets of that rollout. */
  longestStartTargets: number;
}

const ROWS_PER_INSERT = 500;

/**
 * Seeds `dataDir`: tenants, keys, firmware, groups and rollouts through the services (ledger
 * entries included), then devices, group members and success records with multi-row INSERTs in
 * a few transactions (these rows have no ledger entries: no benchmarked endpoint reads them).
 * One device in `DDI_SHARE` (bench/fleet.ts) is a DDI device (`protocol = 'ddi'`) of its type's
 * gateway key, as if that key had registered it on its first poll; the others are asvin devices
 * of their type's key. Both are in the same groups and rollouts.
 * @param fleetSize devices of the large tenant (next rollout, device reads, reports)
 * @param smallSize devices of the small tenant (reports)
 * @param databaseUrl a PostgreSQL database (empty: its migrations create the schema) instead of SQLite in `dataDir`
 */
export async function seed(
  dataDir: string,
  fleetSize: number,
  smallSize: number,
  loginKeys: number,
  databaseUrl?: string,
): Promise<Seeded> {
  const started = performance.now();
  const config = prepareDataDir(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}) }),
  );
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'], abortOnError: false });
  try {
    const tenants = app.get(TenantService);
    const unitOfWork = app.get(UnitOfWork);

    const makeTenant = async (name: string, devices: number, macPrefix: string, extraKeys: number): Promise<SeededTenant> => {
      const tenant = await tenants.createTenant(name);
      const typeKeys = {} as Record<DeviceType, string>;
      const gatewayKeys = {} as Record<DeviceType, string>;
      const keyIds = { asvin: {}, ddi: {} } as Record<FleetProtocol, Record<DeviceType, number>>;
      for (const type of DEVICE_TYPES) {
        const key = await tenants.createDeviceKey(tenant.id, type);
        typeKeys[type] = key.key;
        keyIds.asvin[type] = key.id;
        const gateway = await tenants.createDeviceKey(tenant.id, type, undefined, { ddiGateway: true });
        gatewayKeys[type] = gateway.key;
        keyIds.ddi[type] = gateway.id;
      }
      const logins: string[] = [];
      for (let i = 0; i < extraKeys; i++) logins.push((await tenants.createDeviceKey(tenant.id, 'ESP32')).key);
      await unitOfWork.transaction(async (manager) => {
        const now = Date.now();
        await insertRows(
          manager,
          'device',
          ['tenant_id', 'mac', 'name', 'firmware_version', 'device_key_id', 'device_type', 'protocol', 'last_seen_at', 'created_at'],
          devices,
          (i) => {
            const d = fleetDevice(i, macPrefix);
            const key = keyIds[d.protocol][d.type];
            return [tenant.id, d.mac, d.name, d.version, key, d.type, d.protocol, now - (i % 3600) * 1000, now - 86_400_000];
          },
        );
      });
      return { id: tenant.id, name, customerKey: tenant.customerKey, typeKeys, gatewayKeys, loginKeys: logins, devices, macPrefix };
    };

    const fleet = await makeTenant('bench-fleet', fleetSize, '02:B0:00', loginKeys);
    const small = await makeTenant('bench-small', smallSize, '02:B1:00', 0);

    // Firmware for every type and version, groups, members, rollouts: the large tenant only.
    const firmwareIds = new Map<string, number>();
    for (const type of DEVICE_TYPES) {
      for (const version of FIRMWARE_VERSIONS) {
        const bytes = Buffer.alloc(4096, `${type} firmware ${version}\n`);
        const firmware = await app.get(FirmwareService).publish({ tenantId: fleet.id, version, deviceType: type }, Readable.from([bytes]));
        firmwareIds.set(`${type}@${version}`, firmware.id);
      }
    }
    const groups = app.get(GroupService);
    let memberships = 0;
    for (const group of GROUPS) {
      const { id } = await groups.create(fleet.id, group.name);
      const members: number[] = [];
      for (let i = 0; i < fleetSize; i++) if (group.includes(i)) members.push(i);
      memberships += members.length;
      await unitOfWork.transaction((manager) =>
        insertRows(manager, 'group_member', ['group_id', 'mac'], members.length, (n) => [id, fleetDevice(members[n], fleet.macPrefix).mac]),
      );
    }
    const plans = app.get(RolloutPlanService);
    const longestStart = { seconds: 0, targets: 0 };
    const rolloutIds = new Map<string, number>();
    for (const rollout of ROLLOUTS) {
      const created = await plans.create({
        tenantId: fleet.id,
        name: rollout.name,
        firmwareId: firmwareIds.get(`${rollout.type}@${rollout.version}`)!,
        group: rollout.group,
        priority: rollout.priority,
        startDate: '2026-01-01 00:00:00',
        downgrade: rollout.downgrade,
      });
      if (rollout.state !== 'draft') {
        const starting = performance.now();
        const started = await plans.apply(fleet.id, created.id, 'start');
        const seconds = (performance.now() - starting) / 1000;
        if (seconds > longestStart.seconds) Object.assign(longestStart, { seconds, targets: started.targeted });
      }
      if (rollout.state === 'paused') await plans.apply(fleet.id, created.id, 'pause');
      rolloutIds.set(rollout.name, created.id);
    }
    // Devices of wave a that already run 1.1.0 on ESP32 reported success for that rollout.
    const waveA = rolloutIds.get(ROLLOUTS[0].name)!;
    await unitOfWork.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO rollout_success (rollout_id, device_id, firmware_version, created_at)
         SELECT ${placeholder(manager, 1)}, id, firmware_version, created_at FROM device
         WHERE tenant_id = ${placeholder(manager, 2)} AND device_type = 'ESP32' AND firmware_version = '1.1.0'
           AND mac IN (SELECT mac FROM group_member WHERE group_id = ${placeholder(manager, 3)})`,
        [waveA, fleet.id, (await groups.require(fleet.id, ROLLOUTS[0].group)).id],
      );
    });
    return {
      fleet,
      small,
      memberships,
      seconds: (performance.now() - started) / 1000,
      longestStartSeconds: longestStart.seconds,
      longestStartTargets: longestStart.targets,
    };
  } finally {
    await app.close();
    if (databaseUrl !== undefined) await vacuumAnalyze(databaseUrl);
  }
}

/**
 * `VACUUM ANALYZE` of the seeded PostgreSQL database: what autovacuum does soon after a million
 * rows arrive on a server that runs it (the default), done at once here because the local test
 * server runs with `autovacuum = off`. Without it the planner has no statistics (a search that
 * finds one device took 2.5 s instead of 34 ms) and no visibility map (index-only counts fetch
 * every row).
 */
async function vacuumAnalyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** Inserts `count` rows, {@link ROWS_PER_INSERT} per statement. */
async function insertRows(
  manager: EntityManager,
  table: string,
  columns: string[],
  count: number,
  row: (index: number) => unknown[],
): Promise<void> {
  for (let start = 0; start < count; start += ROWS_PER_INSERT) {
    const end = Math.min(count, start + ROWS_PER_INSERT);
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (let i = start; i < end; i++) {
      const first = values.length;
      values.push(...row(i));
      tuples.push(`(${columns.map((_, c) => placeholder(manager, first + c + 1)).join(', ')})`);
    }
    await manager.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values);
  }
}

/** The n-th (1-based) statement parameter in the engine's notation: `$n` on PostgreSQL, `?` on SQLite. */
function placeholder(manager: EntityManager, n: number): string {
  return manager.connection.options.type === 'postgres' ? `$${n}` : '?';
}

/** Where `npm run bench` and `bench:console -- --engine postgres` create their databases: `BENCH_DATABASE_URL`, default the local test server. */
const BENCH_DATABASE_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** An empty PostgreSQL database beside {@link BENCH_DATABASE_URL}, and how to drop it. */
export async function createBenchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `fl_bench_${process.pid}_${Date.now()}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
