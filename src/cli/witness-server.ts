import { Mutex } from 'async-mutex';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADD_CHECKPOINT_MAX_BYTES, addCheckpoint, type WitnessState } from '#src/domain/ledger/witness.js';
import { parseVerifier, type NoteSigner } from '#src/platform/crypto/signed-note.js';
import { CliError } from './cli-context.js';

/**
 * A witness's state file (JSON, {@link WitnessState}) with the guarantees C2SP tlog-witness asks
 * for: a check and the update it allows happen as one compare-and-swap, and the new state is on
 * disk (written to a temporary file, synced, renamed over the old one) before the witness
 * answers. Within the process an update runs under a mutex; across processes a lock file
 * (`<file>.lock`, holding the owner's pid) keeps a second witness off the same state while one
 * runs: a lock left by a process that no longer exists is taken over.
 */
export class WitnessStateFile {
  private readonly mutex = new Mutex();
  private locked = false;

  constructor(readonly path: string) {}

  /** @throws CliError when another running witness holds the state file. */
  lock(): void {
    const lockFile = `${this.path}.lock`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(lockFile, 'wx', 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        this.locked = true;
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
        const owner = Number(readFileSync(lockFile, 'utf8').trim());
        if (Number.isSafeInteger(owner) && owner > 0 && alive(owner)) {
          throw new CliError(`the witness state ${this.path} is in use by another witness (pid ${owner}; ${lockFile})`);
        }
        rmSync(lockFile, { force: true });
      }
    }
    throw new CliError(`cannot lock the witness state ${this.path}`);
  }

  /** Removes the lock file (when this process holds it). */
  unlock(): void {
    if (this.locked) rmSync(`${this.path}.lock`, { force: true });
    this.locked = false;
  }

  /** The state as kept; `null` before the first cosignature. */
  read(): WitnessState | null {
    return existsSync(this.path) ? (JSON.parse(readFileSync(this.path, 'utf8')) as WitnessState) : null;
  }

  /** Writes the state durably: a synced temporary file renamed over the old one. */
  write(state: WitnessState): void {
    const temporary = `${this.path}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
    const fd = openSync(temporary, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.path);
  }

  /**
   * Runs `decide` on the current state and stores the state it answers, if any, before
   * returning: no other update of this process runs in between.
   */
  update<T extends { state?: WitnessState }>(decide: (state: WitnessState | null) => T): Promise<T> {
    return this.mutex.runExclusive(() => {
      const answer = decide(this.read());
      if (answer.state) this.write(answer.state);
      return answer;
    });
  }
}

/** Whether a process with this pid runs (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** What {@link serveWitness} needs. */
export interface WitnessServerOptions {
  /** `http://host:port[/prefix]`: the submission prefix (`<prefix>/add-checkpoint`). Port 0 picks a free one. */
  url: URL;
  state: WitnessStateFile;
  /** The log's verifier key. */
  logKey: string;
  signer: NoteSigner;
  /** POSIX seconds. */
  now?: () => number;
}

/**
 * Serves C2SP tlog-witness for one log over HTTP: `POST <prefix>/add-checkpoint` (see
 * `addCheckpoint` for the answers; the state is stored before a 200), and the monitoring
 * endpoint `GET <prefix>/<lowercase hex SHA-256 of the origin>/checkpoint`, the newest checkpoint
 * it cosigned (404 before its first). Anything else is 404; a body over 64 KiB is 413.
 * @returns the listening server and the URL it serves (the port filled in).
 */
export async function serveWitness(options: WitnessServerOptions): Promise<{ server: Server; url: string }> {
  const prefix = options.url.pathname.replace(/\/+$/, '');
  const origin = parseVerifier(options.logKey).name;
  const monitoring = `${prefix}/${createHash('sha256').update(origin, 'utf8').digest('hex')}/checkpoint`;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) }).end(body);
  };
  const plain = 'text/plain; charset=utf-8';
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === `${prefix}/add-checkpoint`) {
      const body = await readBody(req);
      if (body === null) return send(res, 413, plain, `a request body holds at most ${ADD_CHECKPOINT_MAX_BYTES} bytes\n`);
      const answer = await options.state.update((state) => addCheckpoint(body, state, options.logKey, options.signer, now()));
      return send(res, answer.status, answer.contentType, answer.body);
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && path === monitoring) {
      const cosigned = options.state.read()?.cosigned;
      return cosigned ? send(res, 200, plain, cosigned) : send(res, 404, plain, 'nothing cosigned yet\n');
    }
    send(res, 404, plain, 'not found\n');
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`firmledger: witness: ${(error as Error).message}\n`);
      if (!res.headersSent) send(res, 500, plain, 'internal error\n');
      else res.destroy();
    });
  });
  server.listen(Number(options.url.port || 80), options.url.hostname);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (error) => reject(new CliError(`witness: cannot listen on ${options.url.host}: ${error.message}`)));
  });
  const { port } = server.address() as AddressInfo;
  const url = new URL(options.url.href);
  url.port = String(port);
  return { server, url: url.href.replace(/\/+$/, '') };
}

/** The request body as UTF-8 text; `null` when it is larger than {@link ADD_CHECKPOINT_MAX_BYTES}. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ADD_CHECKPOINT_MAX_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
