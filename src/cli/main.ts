import { existsSync } from 'node:fs';
import { ConfigError } from '#src/platform/config/config-values.js';
import { describeError } from './cli-context.js';
import { jsonRequested, printError, setJsonMode } from './output.js';
import { buildProgram } from './program.js';

// The `firmledger` CLI: the command tree is assembled in program.ts, one file per command group.
if (existsSync('.env')) process.loadEnvFile('.env');
setJsonMode(jsonRequested(process.argv.slice(2)));

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  printError(describeError(error));
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
