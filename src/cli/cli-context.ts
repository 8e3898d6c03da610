import 'reflect-metadata';
import { HttpException, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, loadConfig, prepareDataDir } from '#src/config/app-config.js';
import { CliModule } from './cli.module.js';

/** A failure to show the user as one line, exit code 1. */
export class CliError extends Error {}

/**
 * Runs `work` against the services on the configured database (SQLite under `DATA_DIR`, or
 * `DATABASE_URL`; migrations run first), then closes it. Works whether or not servers are
 * running: SQLite serializes the writers, PostgreSQL transactions and the ledger lock do.
 */
export async function withServices<T>(work: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  const config = prepareDataDir(loadConfig());
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'], abortOnError: false });
  try {
    return await work(app);
  } finally {
    await app.close();
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
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}
