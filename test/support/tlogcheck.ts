import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/*
 * tlogcheck (test/tools/tlogcheck): an independent C2SP tlog-tiles client written in Go on the Go
 * project's own golang.org/x/mod/sumdb/{tlog,note} packages (Debian's golang-golang-x-mod-dev),
 * built offline. It reads a log only through the C2SP paths (checkpoint, tile/<L>/<N>,
 * tile/entries/<N>) and shares no code with the server.
 */

const SOURCE = fileURLToPath(new URL('../../../test/tools/tlogcheck/', import.meta.url));

/**
 * Why tlogcheck cannot be built here, or `undefined` when it can: the specs that need it skip
 * with this message instead of failing (CI installs Go: .ci/run).
 */
export const TLOGCHECK_UNAVAILABLE: string | undefined =
  spawnSync('go', ['version']).status === 0
    ? undefined
    : 'Go is not installed: apt-get install golang-go golang-golang-x-mod-dev to run the independent tile client';

let built: Promise<string> | undefined;
let directory: string | undefined;

/**
 * Builds tlogcheck once per process (about a second; `GOPROXY=off`, no network: go.mod replaces
 * x/mod with Debian's copy) and answers the binary's path.
 */
export function tlogcheck(): Promise<string> {
  built ??= (async () => {
    directory = mkdtempSync(join(tmpdir(), 'firmledger-tlogcheck-'));
    const binary = join(directory, 'tlogcheck');
    await promisify(execFile)('go', ['build', '-o', binary, '.'], {
      cwd: SOURCE,
      env: {
        ...process.env,
        GOPROXY: 'off',
        GOFLAGS: '-mod=mod',
        GOTOOLCHAIN: 'local',
        GO111MODULE: 'on',
        GOCACHE: process.env['GOCACHE'] ?? join(tmpdir(), 'firmledger-gocache'),
      },
    });
    return binary;
  })();
  return built;
}

/** Removes the built binary. */
export function removeTlogcheck(): void {
  if (directory) rmSync(directory, { recursive: true, force: true });
}

/** What a tlogcheck run printed and how it ended (0 PASS, 1 a check failed, 2 usage). */
export interface TlogcheckOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs tlogcheck with `args`; never throws on its exit code. */
export async function runTlogcheck(...args: string[]): Promise<TlogcheckOutcome> {
  const binary = await tlogcheck();
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      if (typeof code !== 'number') reject(error ?? new Error('tlogcheck did not exit'));
      else resolve({ code, stdout, stderr });
    });
  });
}
