import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { ConfigError } from '#src/config/app-config.js';
import { describeError } from './cli-context.js';
import { registerDeviceKeyCommands } from './device-key.command.js';
import { registerFirmwareCommands } from './firmware.command.js';
import { registerGroupCommands } from './group.command.js';
import { registerLedgerCommands } from './ledger.command.js';
import { registerOperatorTokenCommands } from './operator-token.command.js';
import { registerOperatorUserCommands } from './operator-user.command.js';
import { registerRolloutCommands } from './rollout.command.js';
import { registerServeCommand } from './serve.command.js';
import { registerSimulateCommand } from './simulate.command.js';
import { registerTenantCommands } from './tenant.command.js';
import { registerTufCommands } from './tuf.command.js';

// The `firmledger` CLI: assembles the command groups (one file each, `*.command.ts`) and runs one.
if (existsSync('.env')) process.loadEnvFile('.env');

const program = new Command('firmledger')
  .description('Firmware-rollout server for IoT fleets: operator commands on the configured database (DATA_DIR).')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

registerTenantCommands(program);
registerDeviceKeyCommands(program);
registerOperatorTokenCommands(program);
registerOperatorUserCommands(program);
registerFirmwareCommands(program);
registerGroupCommands(program);
registerRolloutCommands(program);
registerLedgerCommands(program);
registerTufCommands(program);
registerSimulateCommand(program);
registerServeCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`firmledger: ${describeError(error)}\n`);
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
