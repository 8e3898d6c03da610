import { createRequire } from 'node:module';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '#src/platform/config/app-config.js';

/** The tables and their history: every entity class of the app and every migration, in order (the composition root's `SCHEMA`). */
export interface DatabaseSchema {
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: NonNullable<DataSourceOptions['migrations']>;
}

/**
 * How long a request waits for a PostgreSQL connection, milliseconds: a new one to be made, or one
 * of the pool's to come free. Past it the request is answered 503 `Database unavailable, retry
 * later` (docs/deployment.md "Outages") instead of waiting for a server that does not answer
 * (a refused or reset connection fails at once anyway).
 */
export const POSTGRES_CONNECT_TIMEOUT_MS = 3000;

/**
 * TypeORM options: PostgreSQL (`pg`) when `DATABASE_URL` is set, else the embedded default,
 * SQLite in WAL mode under the data directory through the configured `SQLITE_DRIVER`
 * (`better-sqlite3` unless told otherwise). The same migrations run at start on either engine;
 * `synchronize` is off (the schema changes only through migrations).
 */
export function dataSourceOptions(
  config: Pick<AppConfig, 'databasePath'> & Partial<Pick<AppConfig, 'sqliteDriver'>> & { databaseUrl?: string },
  schema: DatabaseSchema,
): DataSourceOptions {
  const common = {
    entities: schema.entities,
    migrations: schema.migrations,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Query errors are not logged here: expected ones (unique violations) are answers, and the
    // error filter logs every unexpected one with its request.
    logging: false,
  } as const;
  if (config.databaseUrl !== undefined) {
    return {
      type: 'postgres',
      url: config.databaseUrl,
      applicationName: 'firmledger',
      connectTimeoutMS: POSTGRES_CONNECT_TIMEOUT_MS,
      ...common,
    };
  }
  const sqlite =
    config.sqliteDriver === 'sqlite3'
      ? ({ type: 'sqlite', busyTimeout: 5000, driver: quietSqlite3() } as const)
      : // TypeORM keeps prepared statements in one first-in-first-out cache of 100; the app's
        // statements outnumber that, so a report's transaction prepared most of them again
        // (success reports +14 % with 1,000: bench/confirmations.ts).
        ({ type: 'better-sqlite3', timeout: 5000, statementCacheSize: 1000 } as const);
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
