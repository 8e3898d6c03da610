import type { Command } from 'commander';
import { example } from './command-kit.js';

/** `firmledger serve`: starts the server, as `npm start` does. */
export function registerServeCommand(program: Command): void {
  example(
    program
      .command('serve')
      .description('start the server (as npm start does, without building); creates the database when there is none')
      .action(async () => {
        await import('#src/main.js');
      }),
    'DATA_DIR=/var/lib/firmledger firmledger serve',
  );
}
