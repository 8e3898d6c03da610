import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config/app-config.js';
import { startServer } from './server.js';

if (existsSync('.env')) process.loadEnvFile('.env');

try {
  await startServer(loadConfig());
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`firmledger: invalid configuration: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
