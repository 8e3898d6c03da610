import type { Command } from 'commander';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { CheckpointService } from '#src/domain/ledger/checkpoint.service.js';
import { consistencyProofResponse, entryProofResponse } from '#src/adapters/ledger/dto/proof.dto.js';
import { LedgerProofService } from '#src/domain/ledger/ledger-proof.service.js';
import { LedgerService } from '#src/domain/ledger/ledger.service.js';
import { TufService } from '#src/domain/tuf/tuf.service.js';
import { ledgerVerifyResponse } from '#src/operator/operator-responses.js';
import {
  COSIGNATURE_ED25519,
  generateSigner,
  NoteFormatError,
  parseSigner,
  parseVerifier,
  type NoteSigner,
} from '#src/platform/crypto/signed-note.js';
import { witness, WitnessInputError, type WitnessSource } from '#src/domain/ledger/witness.js';
import { serveWitness, WitnessStateFile } from './witness-server.js';
import { registerMonitorCommand } from './ledger-monitor.js';
import { CliError, withServices } from './cli-context.js';
import { example, jsonOption, positiveInt } from './command-kit.js';
import { print } from './output.js';

/**
 * `firmledger ledger verify|key|checkpoint|prove|consistency|witness|witness-key|monitor`: the
 * hash-chained ledger and the Merkle log over it (checkpoints, proofs, witnesses), on the
 * configured database; `witness` may instead read another server over HTTP or serve C2SP
 * tlog-witness, and `monitor` follows any server's log through its tiles.
 */
export function registerLedgerCommands(program: Command): void {
  const ledger = example(
    program.command('ledger').description('the hash-chained ledger and its Merkle log: verify, checkpoints, proofs, witnesses'),
    'firmledger ledger verify',
    'firmledger ledger prove 17 > proof.json',
  );

  example(
    ledger
      .command('verify')
      .description(
        'recompute the chain and the Merkle tree, check every checkpoint signature and witness cosignature, and the TUF metadata ' +
          '(root chains, signatures, versions, expiry); exits 1 naming the first break',
      )
      .addOption(jsonOption())
      .action(async (o: { json?: boolean }) => {
        const [result, tuf] = await withServices(
          async (app) => [await app.get(LedgerService).verify(), await app.get(TufService).verify()] as const,
        );
        const answer = ledgerVerifyResponse(result, tuf);
        print(answer, !!o.json, (r) =>
          [
            r.first_break === null
              ? `ledger ok: ${r.entries} entries, head ${r.head}; ${r.checkpoints} checkpoints and ${r.cosignatures} witness cosignatures verified`
              : `ledger BROKEN at ${r.first_break.reason.startsWith('checkpoint') ? 'tree size' : 'entry'} ${r.first_break.seq}: ${r.first_break.reason}`,
            r.tuf.first_break === null
              ? `TUF ok: ${r.tuf.repositories} repositories, ${r.tuf.files} metadata files verified (root chains, signatures, versions)`
              : `TUF BROKEN in ${r.tuf.first_break.repository}: ${r.tuf.first_break.reason}`,
            ...r.tuf.expired.map((line) => `TUF expired (signed again at the next read): ${line}`),
          ].join('\n'),
        );
        if (!answer.ok) process.exitCode = 1;
      }),
    'firmledger ledger verify --json',
  );

  example(
    ledger
      .command('key')
      .description("print the log's public key (signed-note verifier key): give it to whoever checks checkpoints and proofs")
      .action(async () => {
        process.stdout.write(`${await withServices((app) => Promise.resolve(app.get(CheckpointService).verifierKey()))}\n`);
      }),
    'firmledger ledger key > log.vkey',
  );

  example(
    ledger
      .command('checkpoint')
      .description('print the published checkpoint (C2SP tlog-checkpoint in a signed note, with witness cosignatures)')
      .option('--latest', 'the checkpoint of the current tree even when a witness quorum is not met yet')
      .action(async (o: { latest?: boolean }) => {
        const note = await withServices(async (app) =>
          o.latest ? app.get(CheckpointService).latest() : app.get(CheckpointService).published(),
        );
        process.stdout.write(note.note);
      }),
    'firmledger ledger checkpoint',
  );

  example(
    ledger
      .command('prove <seq>')
      .description('print ledger entry <seq> with its leaf text and inclusion proof against the published checkpoint (or --tree-size)')
      .option('--tree-size <n>', 'prove it in the tree of this size', positiveInt('--tree-size'))
      .action(async (seq: string, o: { treeSize?: number }) => {
        const n = positiveInt('seq')(seq);
        const proof = await withServices((app) => app.get(LedgerProofService).entryProof(n, o.treeSize));
        print(entryProofResponse(proof), true, () => '');
      }),
    'firmledger ledger prove 17 --tree-size 40',
  );

  example(
    ledger
      .command('consistency <from> [to]')
      .description('print the consistency proof from tree size <from> to [to] (default: the published checkpoint)')
      .action(async (from: string, to: string | undefined) => {
        const [a, b] = [positiveInt('from')(from), to === undefined ? undefined : positiveInt('to')(to)];
        const proof = await withServices((app) => app.get(LedgerProofService).consistency(a, b));
        print(consistencyProofResponse(proof), true, () => '');
      }),
    'firmledger ledger consistency 40 42',
  );

  example(
    ledger
      .command('witness-key')
      .description("print a witness's public key (note verifier key, type 4), creating its key file when missing")
      .requiredOption('--key <file>', 'the witness key file (created with mode 600 when missing)')
      .option('--name <name>', 'the witness name when the key is created', `witness/${hostname()}`)
      .action((o: { key: string; name: string }) => {
        process.stdout.write(`${witnessSigner(o.key, o.name).text}\n`);
      }),
    'firmledger ledger witness-key --key witness.key --name witness.example.org/w1',
  );

  example(
    ledger
      .command('witness')
      .description(
        'check the newest checkpoint against the ones this witness saw and cosign it when the log proves it consistent; ' +
          'exits 1 naming the first tree size where the histories differ. With --serve, answer the log instead ' +
          '(C2SP tlog-witness: POST <url>/add-checkpoint) until stopped',
      )
      .requiredOption('--state <file>', 'where the witness keeps the checkpoints it cosigned (JSON; created on the first run)')
      .option(
        '--from <source>',
        'the log: a server’s blockchain base URL (BC_URL; the cosignature is handed back to it), or a file with a checkpoint note ' +
          '(proofs then come from the configured database)',
      )
      .option(
        '--serve <url>',
        'serve C2SP tlog-witness at this URL (http://host:port[/prefix]; port 0 picks one) until SIGINT or SIGTERM: the log ' +
          'posts its checkpoints to <url>/add-checkpoint (LEDGER_WITNESS_URLS)',
      )
      .requiredOption('--key <file>', 'the witness key file (created when missing; see witness-key)')
      .option('--name <name>', 'the witness name when the key is created', `witness/${hostname()}`)
      .option('--log-key <vkey>', "the log's public key (firmledger ledger key); needed on the first run")
      .addOption(jsonOption())
      .action(async (o: { state: string; from?: string; serve?: string; key: string; name: string; logKey?: string; json?: boolean }) => {
        if ((o.from === undefined) === (o.serve === undefined)) throw new CliError('witness: give either --from (read the log) or --serve');
        const signer = witnessSigner(o.key, o.name);
        const stateFile = new WitnessStateFile(o.state);
        if (o.serve !== undefined) {
          await serve(o.serve, stateFile, signer, o.logKey, !!o.json);
          return;
        }
        const from = o.from!;
        stateFile.lock();
        try {
          await pull(from, stateFile, signer, o.logKey, !!o.json);
        } finally {
          stateFile.unlock();
        }
      }),
    'firmledger ledger witness --state witness.json --key witness.key --from https://bc.example.com --log-key "$(cat log.vkey)"',
    'firmledger ledger witness --state witness.json --key witness.key --serve http://0.0.0.0:7380 --log-key "$(cat log.vkey)"',
  );

  registerMonitorCommand(ledger);
}

/** One run of the witness that reads the log (`--from`): check, cosign, keep, hand the cosignature back. */
async function pull(
  from: string,
  stateFile: WitnessStateFile,
  signer: NoteSigner,
  logKey: string | undefined,
  json: boolean,
): Promise<void> {
  const state = stateFile.read();
  const url = /^https?:\/\//.test(from) ? from.replace(/\/+$/, '') : null;
  const run = async (source: WitnessSource) => {
    try {
      return await witness(state, logKey, source, signer, Math.floor(Date.now() / 1000));
    } catch (error) {
      if (error instanceof WitnessInputError) throw new CliError(`witness: ${error.message}`);
      throw error;
    }
  };
  const outcome = url
    ? await run(httpSource(url))
    : await withServices((app) =>
        run({
          checkpoint: () => Promise.resolve(readFileSync(from, 'utf8')),
          consistency: async (a, b) => (await app.get(LedgerProofService).consistency(a, b)).proof,
        }),
      );
  if (!outcome.ok) {
    print(
      { ok: false, first_differing_size: outcome.firstDifferingSize, message: outcome.message },
      json,
      () => `witness: ${outcome.message}`,
    );
    process.exitCode = 1;
    return;
  }
  stateFile.write(outcome.state);
  if (url) await submit(url, outcome.cosigned);
  print({ ok: true, tree_size: outcome.size, previous_size: outcome.previous, cosigned: outcome.cosigned }, json, () =>
    [
      outcome.previous === null
        ? `witness: first checkpoint, tree size ${outcome.size}, cosigned`
        : `witness: tree size ${outcome.size} is consistent with ${outcome.previous}, cosigned`,
      outcome.cosigned.trimEnd(),
    ].join('\n'),
  );
}

/**
 * The witness as a C2SP tlog-witness server (`--serve`) until SIGINT or SIGTERM; says where it
 * listens on stdout (`{"url"}` with --json).
 */
async function serve(
  at: string,
  stateFile: WitnessStateFile,
  signer: NoteSigner,
  logKey: string | undefined,
  json: boolean,
): Promise<void> {
  let url;
  try {
    url = new URL(at);
  } catch {
    throw new CliError(`--serve must be a URL such as http://0.0.0.0:7380 (got "${at}")`);
  }
  if (url.protocol !== 'http:') throw new CliError('--serve takes an http:// URL (put a TLS proxy in front for https)');
  stateFile.lock();
  try {
    const state = stateFile.read();
    const key = logKey ?? state?.log_key;
    if (!key) throw new CliError('witness: the log key is needed on the first run (--log-key, as firmledger ledger key prints it)');
    if (state && logKey && logKey !== state.log_key)
      throw new CliError(`witness: the state file witnesses another log key (${state.log_key})`);
    try {
      parseVerifier(key);
    } catch (error) {
      throw new CliError(`--log-key: ${(error as Error).message}`);
    }
    const { server, url: served } = await serveWitness({ url, state: stateFile, logKey: key, signer });
    print(
      { url: served, origin: key.split('+')[0], witness: signer.text },
      json,
      () => `witness: ${signer.name} serves C2SP tlog-witness for ${key.split('+')[0]} at ${served}/add-checkpoint`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => server.close(() => resolve());
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  } finally {
    stateFile.unlock();
  }
}

/** The witness's signer from its key file, created (type 4, mode 600) when the file does not exist. */
function witnessSigner(file: string, name: string): NoteSigner {
  if (!existsSync(file)) {
    try {
      writeFileSync(file, `${generateSigner(name, COSIGNATURE_ED25519).secret}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if (error instanceof NoteFormatError) throw new CliError(`witness name: ${error.message}`);
      throw error;
    }
  }
  try {
    const signer = parseSigner(readFileSync(file, 'utf8'));
    if (signer.type !== COSIGNATURE_ED25519) throw new NoteFormatError('a witness key has type 4 (Ed25519 cosignature)');
    return signer;
  } catch (error) {
    if (error instanceof NoteFormatError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
}

/** Reads a server's public log over HTTP: `GET /checkpoint/latest` and `GET /proof/consistency`. */
function httpSource(base: string): WitnessSource {
  return {
    async checkpoint() {
      const answer = await fetch(`${base}/checkpoint/latest`);
      if (!answer.ok) throw new CliError(`GET ${base}/checkpoint/latest answered ${answer.status}: ${await answer.text()}`);
      return answer.text();
    },
    async consistency(from, to) {
      const answer = await fetch(`${base}/proof/consistency?from=${from}&to=${to}`);
      if (!answer.ok) throw new Error(`consistency proof ${from}→${to}: ${answer.status} ${await answer.text()}`);
      return ((await answer.json()) as { proof: string[] }).proof.map((hash) => Buffer.from(hash, 'base64'));
    },
  };
}

/** Hands the cosigned checkpoint back to the server (`POST /checkpoint/cosignature`). */
async function submit(base: string, cosigned: string): Promise<void> {
  const answer = await fetch(`${base}/checkpoint/cosignature`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ checkpoint: cosigned }),
  });
  if (!answer.ok)
    throw new CliError(`witness: cosigned and kept, but the server refused the cosignature: ${answer.status} ${await answer.text()}`);
}
