import { Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { ConfigError } from '#src/platform/config/config-values.js';
import { loadConfig } from '#src/platform/config/app-config.js';
import { startServer } from '#src/app/server.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

if (existsSync('.env')) process.loadEnvFile('.env');

let server;
try {
  server = await startServer(loadConfig());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`firmledger: invalid configuration: ${error.message}\n`);
  process.exit(2);
}

// SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the database, exit 0.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    new Logger('Shutdown').log(`${signal}: closing listeners and the database`);
    server.close().then(
      () => {
        // Written synchronously on exit (pino flushes its asynchronous destination then).
        new Logger('Shutdown').log('closed: listeners drained, database closed');
        process.exit(0);
      },
      (error: unknown) => {
        new Logger('Shutdown').error(errorMessage(error));
        process.exit(1);
      },
    );
  });
}
