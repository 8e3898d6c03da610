import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The repository root (this file runs from `dist/test/support`). */
export const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The compiled server, as `npm start` runs it. */
export const MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** A server process, and all it has printed so far (standard output and error as they came). */
export interface ServerChild {
  child: ChildProcess;
  output: () => string;
}

/**
 * Starts the compiled server as its own process in `cwd` (the repository root unless told), with
 * no environment but `PATH` and `env`; it does not wait for a listener.
 */
export function spawnServer(env: Record<string, string>, cwd = ROOT): ServerChild {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** The server's components, by the prefix of their `*_URL` variable. */
export type ServerComponent = 'auth' | 'vc' | 'bc' | 'operator' | 'ipfs' | 'tools' | 'ddi' | 'mender';

/** The `*_URL` variables (`AUTH_URL=http://127.0.0.1:<port>` …) of the components given a loopback port. */
export function loopbackUrls(ports: Partial<Record<ServerComponent, number>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(ports).map(([component, port]) => [`${component.toUpperCase()}_URL`, `http://127.0.0.1:${String(port)}`]),
  );
}
