import type { Command } from 'commander';

/** `firmledger serve`: starts the server, as `npm start` does. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the server (same as npm start)')
    .action(async () => {
      await import('#src/main.js');
    });
}
