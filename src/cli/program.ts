import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { example } from './command-kit.js';
import { registerDeviceKeyCommands } from './device-key.command.js';
import { registerDeviceCommands } from './device.command.js';
import { registerFirmwareCommands } from './firmware.command.js';
import { registerGroupCommands } from './group.command.js';
import { registerInitCommand } from './init.command.js';
import { registerLedgerCommands } from './ledger.command.js';
import { registerOperatorTokenCommands } from './operator-token.command.js';
import { registerOperatorUserCommands } from './operator-user.command.js';
import { isJsonMode, printError } from './output.js';
import { registerRolloutCommands } from './rollout.command.js';
import { registerServeCommand } from './serve.command.js';
import { registerSimulateCommand } from './simulate.command.js';
import { registerTenantCommands } from './tenant.command.js';
import { registerTufCommands } from './tuf.command.js';

/** The version in package.json (`firmledger --version`). */
export const CLI_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/**
 * The `firmledger` command tree: one `register…` per command group (`*.command.ts`). Program
 * options are read before the command only (`firmledger --version`), so a command's own options
 * (`firmware publish --version 1.2.0`) are its own. In JSON mode a command-line error is
 * `{"message": ...}` too, without the help text.
 */
export function buildProgram(): Command {
  const program = new Command('firmledger')
    .description('Firmware-rollout server for IoT fleets: operator commands on the configured database (DATA_DIR or DATABASE_URL).')
    .version(CLI_VERSION, '-V, --version', 'print the version of firmledger')
    .enablePositionalOptions()
    .showHelpAfterError(!isJsonMode())
    .configureOutput({
      outputError: (text, write) => (isJsonMode() ? printError(text.trim().replace(/^error: /, '')) : write(text)),
    });
  example(
    program,
    'firmledger init',
    'firmledger tenant create acme',
    'firmledger rollout list --tenant acme --json',
    'firmledger firmware publish --help',
  );
  registerInitCommand(program);
  registerTenantCommands(program);
  registerDeviceKeyCommands(program);
  registerDeviceCommands(program);
  registerOperatorTokenCommands(program);
  registerOperatorUserCommands(program);
  registerFirmwareCommands(program);
  registerGroupCommands(program);
  registerRolloutCommands(program);
  registerLedgerCommands(program);
  registerTufCommands(program);
  registerSimulateCommand(program);
  registerServeCommand(program);
  return program;
}
