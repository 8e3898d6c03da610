import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Debian's real SWUpdate (suricatta with its hawkBit module) for the DDI specs (docs/hawkbit-devices.md).
 *
 * Debian's build runs only signed images (CMS) and checks the hardware revision: {@link buildSwu}
 * signs a `.swu` with a test key (`openssl cms`) for the board {@link TEST_BOARD}. Its update state
 * lives in memory (bootloader `none`), so a "reboot" is a restart with `-c 2` (the new image
 * booted: the client closes the action with success) or `-c 3` (it did not: failure).
 *
 * SWUpdate keeps its IPC sockets at the fixed paths `/tmp/sockinstctrl` and `/tmp/swupdateprog`
 * and its scratch files under `/tmp`, so each instance runs in a private user and mount namespace
 * (`unshare -Urm`) with its own work directory bound over `/tmp`: instances run side by side and
 * write nothing outside their directory. Every path given to SWUpdate is therefore written
 * `/tmp/…`. The network is the host's, so 127.0.0.1 reaches the server under test.
 *
 * The PID namespace is the host's on purpose: SWUpdate's notifier binds abstract Unix sockets named
 * after process ids (`Notify<pid>`), which belong to the network namespace. In private PID
 * namespaces every instance's subprocesses have the same ids, so instances took each other's
 * names; the loser closes its socket and goes on writing to the descriptor, which may by then be
 * an HTTP connection. SWUpdate's subprocesses stay in its process group (and die with it:
 * `PR_SET_PDEATHSIG`), so {@link Swupdate.stop} still leaves no process behind.
 *
 * SIGPIPE is ignored for SWUpdate. Debian's 2022.12 answers IPC status requests from its main thread
 * without blocking SIGPIPE, and its hawkBit module gives up on an answer after 100 ms: on a busy
 * machine (or a slow device) the answer meets a closed socket and SIGPIPE kills SWUpdate right after
 * an install, before it reports it. SWUpdate 2024.05 fixed both ("network_thread: block SIGPIPE in
 * network thread"); docs/hawkbit-devices.md tells device builders.
 */

/** The board and revision every test image is built for (`-H`, and `hardware-compatibility` in sw-description). */
export const TEST_BOARD = 'ddi-test-board:1.0';

/** What can be wrong with a test image on purpose. */
export type SwuMode = 'ok' | 'bad-hash' | 'script-fail';

/** A signed `.swu` and its digests. */
export interface BuiltSwu {
  /** Host path of the `.swu`. */
  file: string;
  bytes: Buffer;
  /** Lowercase hex SHA-1 of the `.swu` (what SWUpdate checks against the DDI artifact's `hashes.sha1`). */
  sha1: string;
  /** Where SWUpdate writes the payload, as it sees it (`/tmp/…`, so inside its work directory). */
  targetPath: string;
}

/** The test signer of a directory: a self-signed RSA certificate SWUpdate trusts with `-k`, made once per directory. */
function signer(dir: string): { key: string; crt: string } {
  const key = join(dir, 'signer.key');
  const crt = join(dir, 'signer.crt');
  if (!existsSync(key)) {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-subj', '/CN=ddi-test-signer', '-days', '3650'],
      {
        stdio: 'ignore',
      },
    );
  }
  return { key, crt };
}

/** A cpio "newc" archive of `entries` in their order (Debian does not install `cpio`; SWUpdate wants sw-description first). */
function cpioNewc(entries: { name: string; data: Buffer }[]): Buffer {
  const pad4 = (n: number) => (4 - (n % 4)) % 4;
  let inode = 1;
  const header = (name: string, size: number, mode: number): Buffer => {
    const nameBytes = Buffer.from(`${name}\0`);
    const fields = [inode++, mode, 0, 0, 1, Math.floor(Date.now() / 1000), size, 0, 0, 0, 0, nameBytes.length, 0]
      .map((value) => value.toString(16).padStart(8, '0').toUpperCase())
      .join('');
    const head = Buffer.from(`070701${fields}`, 'ascii');
    return Buffer.concat([head, nameBytes, Buffer.alloc(pad4(head.length + nameBytes.length))]);
  };
  const parts: Buffer[] = [];
  for (const { name, data } of entries) parts.push(header(name, data.length, 0o100644), data, Buffer.alloc(pad4(data.length)));
  parts.push(header('TRAILER!!!', 0, 0));
  const archive = Buffer.concat(parts);
  return Buffer.concat([archive, Buffer.alloc(pad4(archive.length))]);
}

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

/**
 * Builds a signed `.swu` in `dir` (with the directory's test signer) whose one file, a random
 * payload, the `rawfile` handler writes to `/tmp/target/<name>.bin`. `bad-hash` gives the payload
 * a wrong SHA-256 in sw-description (SWUpdate: "HASH mismatch", nothing installed); `script-fail`
 * adds a shell script handler that exits 1.
 */
export function buildSwu(dir: string, name: string, version: string, mode: SwuMode = 'ok'): BuiltSwu {
  mkdirSync(dir, { recursive: true });
  const { key, crt } = signer(dir);
  const payload = Buffer.concat([Buffer.from(`firmware ${version} of ${name}\n`), randomBytes(4096)]);
  const targetPath = `/tmp/target/${name}.bin`;
  const sha256 = mode === 'bad-hash' ? hex('sha256', Buffer.from('not the payload')) : hex('sha256', payload);
  const script = Buffer.from('#!/bin/sh\necho "ddi-test: failing on purpose ($1)" >&2\nexit 1\n');
  const scripts =
    mode === 'script-fail' ? `,\n  scripts: ( { filename = "fail.sh"; type = "shellscript"; sha256 = "${hex('sha256', script)}"; } )` : '';
  const description = Buffer.from(`software =
{
  version = "${version}";
  description = "firmledger DDI test image ${name}";
  hardware-compatibility: [ "${TEST_BOARD.split(':')[1]}" ];
  files: (
    {
      filename = "payload.bin";
      path = "${targetPath}";
      sha256 = "${sha256}";
      properties: { create-destination = "true"; };
    }
  )${scripts};
};
`);
  const work = mkdtempSync(join(dir, `build-${name}-`));
  try {
    writeFileSync(join(work, 'sw-description'), description);
    execFileSync('openssl', [
      'cms',
      '-sign',
      '-in',
      join(work, 'sw-description'),
      '-out',
      join(work, 'sw-description.sig'),
      '-signer',
      crt,
      '-inkey',
      key,
      '-outform',
      'DER',
      '-nosmimecap',
      '-binary',
    ]);
    const bytes = cpioNewc([
      { name: 'sw-description', data: description },
      { name: 'sw-description.sig', data: readFileSync(join(work, 'sw-description.sig')) },
      { name: 'payload.bin', data: payload },
      ...(mode === 'script-fail' ? [{ name: 'fail.sh', data: script }] : []),
    ]);
    const file = join(dir, `${name}.swu`);
    writeFileSync(file, bytes);
    return { file, bytes, sha1: hex('sha1', bytes), targetPath };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** How to start one SWUpdate instance. */
export interface SwupdateOptions {
  /** Host directory that SWUpdate sees as `/tmp`: it needs the signer (`signer.crt`) of the images it installs. */
  workDir: string;
  /** Base URL of the DDI component, scheme, host and port (and path), without a trailing slash. */
  url: string;
  tenant: string;
  controllerId: string;
  /** `Authorization: TargetToken <token>`. */
  targetToken?: string;
  /** `Authorization: GatewayToken <token>`. */
  gatewayToken?: string;
  /** `-c 2`: the device restarted on the new image (closes the action with success); `-c 3`: on the old one (failure). */
  confirm?: 2 | 3;
  /** Accept the server's certificate unchecked (`-x`), for a self-signed test certificate. */
  insecure?: boolean;
  /** Attributes SWUpdate sends as `configData` (its `identify` section). */
  identify?: Record<string, string>;
  /** Host file every output line is appended to. */
  logFile?: string;
}

/** A running SWUpdate. */
export interface Swupdate {
  /** Its output lines so far. */
  readonly lines: readonly string[];
  /** Ends it (its whole process group): SIGTERM, SIGKILL after `graceMs` (SWUpdate sometimes ignores SIGTERM mid-download). */
  stop(graceMs?: number): Promise<void>;
}

/** The SWUpdate binary; CI installs it (`.ci/run`), so its absence fails the spec rather than skipping it. */
export function swupdateBinary(): string {
  for (const candidate of ['/usr/bin/swupdate', '/usr/sbin/swupdate']) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error('swupdate is required by the DDI client spec and was not found: apt-get install swupdate');
}

/**
 * Starts SWUpdate in suricatta (hawkBit) mode, polling every second until the server says
 * otherwise (`-p 1`), one download retry a second (`-r 1 -w 1`), logging at INFO (`SWUPDATE_LOGLEVEL=5` for TRACE, with its HTTP exchanges).
 */
export function startSwupdate(options: SwupdateOptions): Swupdate {
  const binary = swupdateBinary();
  const suricatta = ['-t', options.tenant, '-u', options.url, '-i', options.controllerId, '-p', '1', '-r', '1', '-w', '1'];
  if (options.targetToken) suricatta.push('-k', options.targetToken);
  if (options.gatewayToken) suricatta.push('-g', options.gatewayToken);
  if (options.confirm) suricatta.push('-c', String(options.confirm));
  if (options.insecure) suricatta.push('-x');
  const identify = Object.entries(options.identify ?? {});
  writeFileSync(
    join(options.workDir, 'swupdate.cfg'),
    `globals : { loglevel = 3; public-key-file = "/tmp/signer.crt"; };\n` +
      (identify.length > 0
        ? `identify : (\n${identify.map(([name, value]) => `  { name = "${name}"; value = "${value}"; }`).join(',\n')}\n);\n`
        : ''),
  );
  // -u is one argument holding every suricatta option: SWUpdate splits it on blanks itself.
  const args = [
    '-f',
    '/tmp/swupdate.cfg',
    '-l',
    process.env['SWUPDATE_LOGLEVEL'] ?? '3',
    '-k',
    '/tmp/signer.crt',
    '-H',
    TEST_BOARD,
    '-u',
    suricatta.join(' '),
  ];
  const child: ChildProcess = spawn(
    'unshare',
    [
      '-Urm',
      'sh',
      '-c',
      // SIGPIPE ignored (kept across exec): see the module comment.
      'trap "" PIPE && mount --bind "$0" /tmp && cd /tmp && binary="$1" && shift && exec "$binary" "$@"',
      options.workDir,
      binary,
      ...args,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'], LANG: 'C' } },
  );
  const lines: string[] = [];
  const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : null;
  log?.write(`# swupdate ${args.join(' ')}\n`);
  let pending = '';
  const read = (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      lines.push(line);
      log?.write(`${line}\n`);
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      // An exit nobody asked for is the client's failure, not the server's: say so where a wait that times out shows it.
      if (!stopping) lines.push(`(SWUpdate exited by itself: ${signal === null ? `code ${String(code)}` : `signal ${signal}`})`);
      resolve();
    }),
  );
  return {
    lines,
    async stop(graceMs = 3000) {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        signalGroup(child, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
    },
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** A fresh work directory for one SWUpdate device (SWUpdate sees it as `/tmp`), with the signer of `signerDir` in it. */
export function deviceDir(parent: string, name: string, signerDir: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'signer.crt'), readFileSync(join(signerDir, 'signer.crt')));
  return dir;
}

/**
 * How long a spec waits for SWUpdate to get somewhere, milliseconds: an update of a test image
 * takes a few seconds, but SWUpdate runs several processes and CI machines are shared.
 */
export const CLIENT_WAIT_MS = 60_000;

/**
 * Answers what `wait` answers; when it fails, the error also carries SWUpdate's last `lines`
 * lines (what the client did, or why it stopped), and `detail` when given.
 */
export async function explained<T>(swupdate: Swupdate | undefined, wait: Promise<T>, detail?: () => string, lines = 20): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    const output = swupdate ? swupdate.lines.slice(-lines).join('\n') : '(no SWUpdate started)';
    const extra = detail ? `; ${detail()}` : '';
    throw new Error(`${(error as Error).message}${extra}; SWUpdate's last lines:\n${output}`);
  }
}

/**
 * Polls `check` every `intervalMs` until it returns something other than `undefined`, `null` or
 * `false`, and answers that.
 * @throws Error naming `what` (and the last value seen) after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = CLIENT_WAIT_MS,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
