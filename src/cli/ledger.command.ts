import type { Command } from 'commander';
import { LedgerService } from '#src/ledger/ledger.service.js';
import { withServices } from './cli-context.js';
import { jsonOption } from './command-kit.js';
import { print } from './output.js';

/** `firmledger ledger verify`: the hash-chained ledger. */
export function registerLedgerCommands(program: Command): void {
  const ledger = program.command('ledger').description('the hash-chained ledger');
  ledger
    .command('verify')
    .description('recompute the chain; exits 1 naming the first entry that does not match')
    .addOption(jsonOption())
    .action(async (o: { json?: boolean }) => {
      const result = await withServices((app) => app.get(LedgerService).verify());
      print(result, !!o.json, (r: typeof result) =>
        r.ok ? `ledger ok: ${r.entries} entries, head ${r.head}` : `ledger BROKEN at entry ${r.firstBreak!.seq}: ${r.firstBreak!.reason}`,
      );
      if (!result.ok) process.exitCode = 1;
    });
}
