import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { freePort } from '#test/support/free-port.js';

export { freePort };

/** The server's listener variables, one per component. */
export const LISTENERS = ['AUTH_URL', 'VC_URL', 'BC_URL', 'OPERATOR_URL', 'IPFS_URL', 'TOOLS_URL', 'DDI_URL', 'MENDER_URL'] as const;

/** Every listener of a server on a free loopback port of its own (a default port, 3000 to 3008, may be taken on the machine). */
export async function listenerUrls(): Promise<Record<(typeof LISTENERS)[number], string>> {
  const urls = {} as Record<(typeof LISTENERS)[number], string>;
  for (const name of LISTENERS) urls[name] = `http://127.0.0.1:${await freePort()}`;
  return urls;
}

/** Resident memory of a process from `/proc/<pid>/status`, bytes: now (`VmRSS`) and peak (`VmHWM`). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Resets the peak (`VmHWM`) of a process to its current RSS (`echo 5 > /proc/<pid>/clear_refs`,
 * Linux ≥ 4.0). Returns `false` when the kernel refuses; the peak then counts from process start.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Clock ticks a second of `/proc/<pid>/stat`'s CPU times (`getconf CLK_TCK`; 100 on Linux where it cannot be asked). */
let clockTicks: number | undefined;

function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * CPU time a process has used so far, all its threads, user and system (`/proc/<pid>/stat`), or
 * only its thread `thread` (`/proc/<pid>/task/<thread>/stat`; a Node process's main thread, which
 * runs its event loop, has the process's id), microseconds; resolution one clock tick (10 ms).
 * `undefined` when the process is gone.
 */
export function cpuMicros(pid: number, thread?: number): number | undefined {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    // The command name (field 2) may hold blanks: the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond();
  } catch {
    return undefined;
  }
}

/**
 * CPU time used so far by every process of the machine named `postgres` (the local PostgreSQL
 * server: its backends, which run the queries, and its background processes), microseconds.
 */
export function postgresCpuMicros(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (!stat.includes(' (postgres) ')) continue;
    total += cpuMicros(Number(entry)) ?? 0;
  }
  return total;
}

/** A server under test, running as a child process so its memory is its own. */
export class ServerProcess {
  private exited: Promise<number | null>;
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000);
    });
    child.stdout?.on('data', () => undefined);
  }

  /**
   * Starts `node <script>` with `env` added to a minimal environment and waits until `readyUrl`
   * answers any HTTP status.
   * @throws Error with the child's stderr when it exits or is not ready within 60 s.
   */
  static async start(script: string, env: Record<string, string>, readyUrl: string, nodeArgs: string[] = []): Promise<ServerProcess> {
    const child = spawn(process.execPath, [...nodeArgs, script], {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(child);
    const deadline = Date.now() + 60_000;
    let gone = false;
    void server.exited.then(() => (gone = true));
    while (Date.now() < deadline) {
      if (gone) throw new Error(`${script} exited during start: ${server.stderr}`);
      try {
        await fetch(readyUrl, { signal: AbortSignal.timeout(1000) });
        return server;
      } catch {
        await new Promise((wake) => setTimeout(wake, 100));
      }
    }
    await server.stop();
    throw new Error(`${script} not ready after 60 s: ${server.stderr}`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The last 4000 characters the child wrote to stderr. */
  get errors(): string {
    return this.stderr;
  }

  /** SIGTERM, then SIGKILL after 10 s; resolves to the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
