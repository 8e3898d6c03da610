import type { Command } from 'commander';
import { LedgerService } from '#src/ledger/ledger.service.js';
import { ledgerVerifyResponse } from '#src/operator/dto/ledger.dto.js';
import { withServices } from './cli-context.js';
import { example, jsonOption } from './command-kit.js';
import { print } from './output.js';

/** `firmledger ledger verify`: the hash-chained ledger. */
export function registerLedgerCommands(program: Command): void {
  const ledger = example(program.command('ledger').description('the hash-chained ledger of every change'), 'firmledger ledger verify');
  example(
    ledger
      .command('verify')
      .description('recompute the chain; exits 1 naming the first entry that does not match')
      .addOption(jsonOption())
      .action(async (o: { json?: boolean }) => {
        const result = await withServices((app) => app.get(LedgerService).verify());
        print(
          result,
          !!o.json,
          (r) =>
            r.ok
              ? `ledger ok: ${r.entries} entries, head ${r.head}`
              : `ledger BROKEN at entry ${r.firstBreak!.seq}: ${r.firstBreak!.reason}`,
          ledgerVerifyResponse,
        );
        if (!result.ok) process.exitCode = 1;
      }),
    'firmledger ledger verify --json',
  );
}
