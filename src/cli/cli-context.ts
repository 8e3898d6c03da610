import 'reflect-metadata';
import { HttpException, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { ConfigError } from '#src/platform/config/config-values.js';
import { loadConfig, prepareDataDir, type AppConfig } from '#src/platform/config/app-config.js';
import { CliModule } from './cli.module.js';
import { note } from './output.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** A failure to show the user as one line, exit code 1. */
export class CliError extends Error {}

/** Options of {@link withServices}. */
export interface ServicesOptions {
  /**
   * Create the database when there is none (`firmledger init`). Without it a command refuses to
   * run on a database that does not exist yet, so that running the CLI from another directory
   * (another `./data`) never silently starts a new, empty one.
   */
  create?: boolean;
}

/**
 * Runs `work` against the services on the configured database (SQLite under `DATA_DIR`, or
 * `DATABASE_URL`; migrations run first), then closes it. Works whether or not servers are
 * running: SQLite serializes the writers, PostgreSQL transactions and the ledger lock do.
 * Says on stderr which database it opened (not with `--json`).
 * @throws CliError when the database does not exist yet and `options.create` is not set.
 */
export async function withServices<T>(work: (app: INestApplicationContext) => Promise<T>, options: ServicesOptions = {}): Promise<T> {
  const loaded = loadConfig();
  if (!options.create && !(await databaseExists(loaded))) {
    throw new CliError(
      `no database at ${databaseName(loaded)}: run firmledger where the server keeps its data, set ` +
        `${loaded.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR (or DATABASE_URL)'}, or create a new database with "firmledger init"`,
    );
  }
  const config = prepareDataDir(loaded);
  note(`using the database ${databaseName(config)}`);
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'], abortOnError: false });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/**
 * The database a configuration names, for the user: the SQLite file's absolute path, or the
 * PostgreSQL URL without its password.
 */
export function databaseName(config: AppConfig): string {
  if (!config.databaseUrl) return config.databasePath;
  const url = new URL(config.databaseUrl);
  url.password = '';
  return url.href;
}

/**
 * Whether the configured database holds firmledger's schema: the SQLite file exists, or the
 * PostgreSQL database has the migrations table (an empty database there is not one yet).
 */
export async function databaseExists(config: AppConfig): Promise<boolean> {
  if (!config.databaseUrl) return existsSync(config.databasePath);
  const client = new pg.Client({ connectionString: config.databaseUrl });
  try {
    await client.connect();
  } catch (error) {
    throw new CliError(`cannot reach the database ${databaseName(config)}: ${errorMessage(error)}`);
  }
  try {
    const { rows } = await client.query<{ found: boolean }>(`SELECT to_regclass('migrations') IS NOT NULL AS found`);
    return rows[0]?.found === true;
  } finally {
    await client.end();
  }
}

/** One line for the user: the API's own message for expected errors. */
export function describeError(error: unknown): string {
  if (error instanceof HttpException) {
    const body = error.getResponse();
    const message = typeof body === 'string' ? body : (body as { message?: unknown }).message;
    return typeof message === 'string' ? message : error.message;
  }
  if (error instanceof ConfigError || error instanceof CliError) return error.message;
  return `unexpected error: ${errorMessage(error)}`;
}
