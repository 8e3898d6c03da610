import { createRequire } from 'node:module';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '#src/config/app-config.js';
import { DeviceKey } from '#src/tenant/device-key.entity.js';
import { Tenant } from '#src/tenant/tenant.entity.js';
import { Device } from '#src/device/device.entity.js';
import { Firmware } from '#src/firmware/firmware.entity.js';
import { DeviceGroup, GroupMember } from '#src/group/device-group.entity.js';
import { Rollout, RolloutSuccess } from '#src/rollout/rollout.entity.js';
import { RolloutDeviceState, RolloutDeviceTransition } from '#src/rollout/rollout-device-state.entity.js';
import { LedgerEntry } from '#src/ledger/ledger-entry.entity.js';
import { LedgerCheckpoint, LedgerCosignature, LedgerTreeNode } from '#src/ledger/ledger-tree.entity.js';
import { LoginNonce, LoginRate } from '#src/auth/login-record.entity.js';
import { InitialSchema1763700000000 } from './migrations/1763700000000-InitialSchema.js';
import { OperatorTokens1763800000000 } from './migrations/1763800000000-OperatorTokens.js';
import { OperatorQueryIndexes1763912000000 } from './migrations/1763912000000-OperatorQueryIndexes.js';
import { FirmwareDownloads1764100000000 } from './migrations/1764100000000-FirmwareDownloads.js';
import { FirmwareDownload } from '#src/ipfs/firmware-download.entity.js';
import { OperatorAccounts1764200000000 } from './migrations/1764200000000-OperatorAccounts.js';
import { RolloutDeviceStates1764400000000 } from './migrations/1764400000000-RolloutDeviceStates.js';
import { LedgerTree1764500000000 } from './migrations/1764500000000-LedgerTree.js';
import { TufMetadata1764510000000 } from './migrations/1764510000000-TufMetadata.js';
import { TufMetadata } from '#src/tuf/tuf-metadata.entity.js';
import { OperatorToken } from '#src/operator/operator-token.entity.js';
import { OperatorSession, OperatorUser } from '#src/operator-account/operator-user.entity.js';

export const ENTITIES = [
  Tenant,
  DeviceKey,
  Device,
  Firmware,
  DeviceGroup,
  GroupMember,
  Rollout,
  RolloutSuccess,
  RolloutDeviceState,
  RolloutDeviceTransition,
  LedgerEntry,
  LedgerTreeNode,
  LedgerCheckpoint,
  LedgerCosignature,
  TufMetadata,
  LoginNonce,
  LoginRate,
  OperatorToken,
  FirmwareDownload,
  OperatorUser,
  OperatorSession,
];
export const MIGRATIONS = [
  InitialSchema1763700000000,
  OperatorTokens1763800000000,
  OperatorQueryIndexes1763912000000,
  FirmwareDownloads1764100000000,
  OperatorAccounts1764200000000,
  RolloutDeviceStates1764400000000,
  LedgerTree1764500000000,
  TufMetadata1764510000000,
];

/**
 * TypeORM options: PostgreSQL (`pg`) when `DATABASE_URL` is set, else the embedded default,
 * SQLite in WAL mode under the data directory through the configured `SQLITE_DRIVER`
 * (`better-sqlite3` unless told otherwise). The same migrations run at start on either engine;
 * `synchronize` is off (the schema changes only through migrations).
 */
export function dataSourceOptions(
  config: Pick<AppConfig, 'databasePath'> & Partial<Pick<AppConfig, 'sqliteDriver'>> & { databaseUrl?: string },
): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Query errors are not logged here: expected ones (unique violations) are answers, and the
    // error filter logs every unexpected one with its request.
    logging: false,
  } as const;
  if (config.databaseUrl !== undefined) {
    return { type: 'postgres', url: config.databaseUrl, applicationName: 'firmledger', ...common };
  }
  const sqlite =
    config.sqliteDriver === 'sqlite3'
      ? ({ type: 'sqlite', busyTimeout: 5000, driver: quietSqlite3() } as const)
      : ({ type: 'better-sqlite3', timeout: 5000 } as const);
  return { ...sqlite, database: config.databasePath, enableWAL: true, ...common };
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
