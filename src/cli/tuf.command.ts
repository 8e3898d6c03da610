import type { Command } from 'commander';
import { TufKeys } from '#src/domain/tuf/tuf-keys.js';
import { withServices } from './cli-context.js';
import { example } from './command-kit.js';

/** `firmledger tuf rotate-root`: the signed update metadata (TUF) of the firmware. */
export function registerTufCommands(program: Command): void {
  const tuf = example(
    program
      .command('tuf')
      .description('signed update metadata (TUF) of each tenant’s firmware per device type, served under {ipfs_url}/tuf'),
    'firmledger tuf rotate-root',
  );
  example(
    tuf
      .command('rotate-root')
      .description(
        'make a new root key (kept in DATA_DIR/tuf) the current one: each repository’s next root version is signed by the old and the new key, ' +
          'so TUF clients that trust the old root move to the new one',
      )
      .action(async () => {
        const key = await withServices((app) => Promise.resolve(app.get(TufKeys).rotateRoot()));
        process.stdout.write(`new TUF root key ${key.key.keyID}\n`);
      }),
    'firmledger tuf rotate-root',
  );
}
