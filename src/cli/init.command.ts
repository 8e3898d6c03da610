import type { Command } from 'commander';
import { loadConfig } from '#src/platform/config/app-config.js';
import { databaseExists, databaseName, withServices } from './cli-context.js';
import { example, jsonOption } from './command-kit.js';
import { print } from './output.js';

/**
 * `firmledger init`: creates the database (SQLite under `DATA_DIR`, or the schema in the empty
 * PostgreSQL database of `DATABASE_URL`) with every migration; on an existing one it only brings
 * the schema up to date. The one CLI command that creates a database (the server does too).
 */
export function registerInitCommand(program: Command): void {
  example(
    program
      .command('init')
      .description(
        'create the database (SQLite under DATA_DIR, or the schema in DATABASE_URL); the other commands refuse to run without one',
      )
      .addOption(jsonOption())
      .action(async (o: { json?: boolean }) => {
        const config = loadConfig();
        const created = !(await databaseExists(config));
        await withServices(() => Promise.resolve(), { create: true });
        print({ database: databaseName(config), created }, !!o.json, (r) =>
          r.created ? `created the database ${r.database}` : `the database ${r.database} already exists; its schema is up to date`,
        );
      }),
    'DATA_DIR=/var/lib/firmledger firmledger init',
  );
}
