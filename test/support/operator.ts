import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { request, type Answer, type TestApp } from './harness.js';

/** An operator API client: every request carries `Authorization: Bearer <operator token>`. */
export interface OperatorClient {
  get(path: string): Promise<Answer>;
  post(path: string, body?: unknown): Promise<Answer>;
}

/** Speaks to `app`'s operator listener (OPERATOR_URL) with `bearer`. */
export function operatorClient(app: TestApp, bearer: string): OperatorClient {
  return {
    get: (path) => request('GET', `${app.urls.operator}${path}`, { bearer }),
    post: (path, body) => request('POST', `${app.urls.operator}${path}`, { bearer, body }),
  };
}

let lastTimestamp = 0;

/**
 * A device login as field devices sign it (docs/decisions.md §1): returns the whole answer, so tests
 * can see refusals. Each call uses a fresh timestamp near the app's clock.
 */
export function deviceLogin(app: TestApp, customerKey: string, deviceKey: string): Promise<Answer> {
  lastTimestamp = Math.max(lastTimestamp + 1, Math.floor(app.clock.now() / 1000) - 200);
  const timestamp = lastTimestamp;
  return request('POST', `${app.urls.auth}/auth/login`, {
    body: { device_key: deviceKey, timestamp, device_signature: deviceSignature(customerKey, String(timestamp), deviceKey) },
  });
}

/** What a CLI run ended with. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The last line a CLI run wrote (on stderr: its error, after the line naming the database it
 * opened), without the line break.
 */
export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

/** The root of this checkout (the compiled file is `dist/test/support/`): the CLI runs from there. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs the built `firmledger` CLI as a real process on `app`'s database; never throws on exit codes. */
export function runCli(app: TestApp, ...args: string[]): Promise<CliOutcome> {
  return runCliWithInput(app, undefined, ...args);
}

/**
 * As {@link runCli}, writing `input` to the CLI's standard input (not a terminal), as a script
 * pipes a password in; `undefined` leaves standard input empty.
 */
export function runCliWithInput(app: TestApp, input: string | undefined, ...args: string[]): Promise<CliOutcome> {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], ...app.database.env };
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['bin/firmledger.js', ...args],
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        if (typeof code !== 'number') reject(error ?? new Error('the CLI did not exit'));
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

/** A long-running CLI process ({@link spawnCli}). */
export interface RunningCli {
  /** Everything it printed so far. */
  output(): string;
  /** Stops it (SIGTERM to this process only) and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the built `firmledger` CLI as a long-running process (a witness server) with `env`, and
 * resolves once a line of its stdout matches `ready`, with that match.
 * @throws Error with its output when it exits or says nothing matching within 20 seconds.
 */
export async function spawnCli(
  env: Record<string, string>,
  ready: RegExp,
  ...args: string[]
): Promise<RunningCli & { ready: RegExpMatchArray }> {
  const child = spawn(process.execPath, ['bin/firmledger.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the CLI did not get ready: ${output}`)), 20_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the CLI exited (${code}) before it was ready: ${output}`));
    });
  });
  return {
    ready: match,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
