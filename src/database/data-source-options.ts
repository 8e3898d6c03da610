import { createRequire } from 'node:module';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '#src/config/app-config.js';
import { DeviceKey } from '#src/tenant/device-key.entity.js';
import { Tenant } from '#src/tenant/tenant.entity.js';
import { Device } from '#src/device/device.entity.js';
import { Firmware } from '#src/firmware/firmware.entity.js';
import { DeviceGroup, GroupMember } from '#src/rollout/device-group.entity.js';
import { Rollout, RolloutSuccess } from '#src/rollout/rollout.entity.js';
import { LedgerEntry } from '#src/chain/ledger-entry.entity.js';
import { LoginNonce, LoginRate } from '#src/auth/login-record.entity.js';
import { InitialSchema1763700000000 } from './migrations/1763700000000-InitialSchema.js';

export const ENTITIES = [
  Tenant,
  DeviceKey,
  Device,
  Firmware,
  DeviceGroup,
  GroupMember,
  Rollout,
  RolloutSuccess,
  LedgerEntry,
  LoginNonce,
  LoginRate,
];
export const MIGRATIONS = [InitialSchema1763700000000];

/**
 * TypeORM options for the embedded default: SQLite in WAL mode under the data directory, through
 * the `SQLITE_DRIVER` of the configuration (`sqlite3` when not given),
 * migrations run at start, `synchronize` off (the schema changes only through migrations).
 */
export function dataSourceOptions(config: Pick<AppConfig, 'databasePath'> & Partial<Pick<AppConfig, 'sqliteDriver'>>): DataSourceOptions {
  const driver =
    config.sqliteDriver === 'better-sqlite3'
      ? ({ type: 'better-sqlite3', timeout: 5000 } as const)
      : ({ type: 'sqlite', busyTimeout: 5000, driver: quietSqlite3() } as const);
  return {
    ...driver,
    database: config.databasePath,
    enableWAL: true,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Query errors are not logged here: expected ones (unique violations) are answers, and the
    // error filter logs every unexpected one with its request.
    logging: false,
  };
}

/**
 * The sqlite3 module with its `verbose()` made a no-op. TypeORM calls `verbose()` on the driver,
 * which makes sqlite3 capture a stack trace and `util.inspect` the SQL and parameters of every
 * call (to extend error traces): about a quarter of the CPU time of a simple request.
 */
function quietSqlite3(): unknown {
  const sqlite3 = createRequire(import.meta.url)('sqlite3') as object;
  return Object.assign(Object.create(sqlite3) as object, { verbose: () => sqlite3 });
}
