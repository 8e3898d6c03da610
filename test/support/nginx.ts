import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitForPort } from './free-port.js';

/**
 * nginx in front of server instances, for the multi-instance spec and the benchmark: its own
 * configuration and prefix in a directory of the caller (the packaged service is never used),
 * one worker, in the foreground.
 */

/** A running nginx: its process and what it printed (errors). */
export interface RunningNginx {
  child: ChildProcess;
  output: () => string;
}

/** The nginx binary; CI installs it, so its absence is an error, not a skip. */
export function nginxBinary(): string {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  throw new Error('nginx was not found: apt-get install nginx-light (or nginx)');
}

/**
 * Starts nginx with `blocks` (upstream and server blocks) inside its `http` block, its files under
 * `dir`, and waits until it listens on every port of `ports`.
 * @throws Error with nginx's output when it exits before that.
 */
export async function startNginx(dir: string, blocks: readonly string[], ports: readonly number[]): Promise<RunningNginx> {
  await mkdir(join(dir, 'logs'), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  const errorLog = join(dir, 'logs', 'error.log');
  await writeFile(
    conf,
    `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
${blocks.join('\n')}
}
`,
  );
  let output = '';
  const child = spawn(nginxBinary(), ['-p', dir, '-e', errorLog, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    for (const port of ports) await waitForPort(port, () => `nginx exited ${String(child.exitCode)}: ${output}`);
  } catch (error) {
    await stopProcess(child, 'SIGQUIT');
    throw error;
  }
  return { child, output: () => output };
}

/** Signals `child` (nginx: `SIGQUIT` finishes the requests under way) and waits until it exited. */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}
