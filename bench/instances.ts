import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, type LoadResult, type LoadSettings, type NextRequest } from './load.js';
import { freePort, type ServerProcess } from './processes.js';
import { waitForPort } from '#test/support/free-port.js';

/** Redis the instances share (`REDIS_URL`): `BENCH_REDIS_URL`, default redis://127.0.0.1:6379. */
export const BENCH_REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Requests/s of two instances behind nginx over one instance behind nginx that the issue asks for. */
export const INSTANCES_TARGET = 1.6;

/** A started app instance: its process and its VC base URL. */
export interface Instance {
  server: ServerProcess;
  vc: string;
}

/** What {@link measureInstances} needs from the bench. */
export interface InstancesOptions {
  /** Starts one app instance with `env` added to the bench's usual environment. */
  start: (env: Record<string, string>) => Promise<Instance>;
  /** A fresh request generator of the scenario. */
  requests: () => NextRequest;
  /** Checks the scenario's answers at a VC base URL; throws when one is wrong. */
  check: (vc: string) => Promise<unknown>;
  settings: LoadSettings;
}

/** The same scenario through nginx to one instance and to two. */
export interface InstancesResult {
  one: LoadResult;
  two: LoadResult;
}

/** The nginx binary, looked up like the multi-instance spec does. */
export function nginxBinary(): string {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  throw new Error('the instances scenario needs nginx and it was not found: apt-get install nginx-light (or nginx)');
}

/**
 * nginx in the foreground under `dir`, one loopback listener per pool, round-robin to the pool's
 * VC URLs. One worker process: the machine's cores are shared with the instances, PostgreSQL and
 * the load generator, and one worker proxies far more than the instances answer. Upstream
 * connections are kept alive (`keepalive`), closed after 4 s idle: before the app's 5 s (Node's
 * default `keepAliveTimeout`), so nginx never reuses one the app is closing. No retry on another
 * instance (`proxy_next_upstream off`), so a failure is counted, not hidden. `X-Upstream` names
 * the instance that answered.
 */
async function startNginx(dir: string, pools: string[][]): Promise<{ child: ChildProcess; ports: number[]; output: () => string }> {
  const ports: number[] = [];
  const blocks: string[] = [];
  for (const [index, pool] of pools.entries()) {
    ports.push(await freePort());
    blocks.push(`
  upstream pool${index} {
    ${pool.map((url) => `server ${new URL(url).host} max_fails=0;`).join('\n    ')}
    keepalive 128;
    keepalive_timeout 4s;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${ports[index]};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://pool${index};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream off;
      add_header X-Upstream $upstream_addr always;
    }
  }`);
  }
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
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
  const child = spawn(nginxBinary(), ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    for (const port of ports) await waitForPort(port, () => `nginx exited ${String(child.exitCode)}: ${output}`);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, ports, output: () => output };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGQUIT');
  await exited;
}

/** Sends `count` requests to `origin` and returns the instances (nginx's `X-Upstream`) that answered them. */
async function upstreams(origin: string, next: NextRequest, count: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const request = next();
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      body: request.body,
      headers: { ...request.headers, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    });
    await response.arrayBuffer();
    seen.add(response.headers.get('x-upstream') ?? '');
  }
  return seen;
}

/**
 * The scenario through one nginx to one app instance, then to two: both instances on the bench's
 * database and data directory (so one JWT secret) with `REDIS_URL` = {@link BENCH_REDIS_URL}.
 * Answers are checked through nginx first, and each pool's requests must reach all its instances.
 * @throws Error when nginx is missing, an instance does not start, or a check fails.
 */
export async function measureInstances(options: InstancesOptions): Promise<InstancesResult> {
  const dir = await mkdtemp(join(tmpdir(), 'firmledger-bench-nginx-'));
  const instances: Instance[] = [];
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  try {
    nginxBinary(); // fail before starting anything when nginx is missing
    // One after the other: the database is already migrated, but no two start-ups race.
    for (let i = 0; i < 2; i++) instances.push(await options.start({ REDIS_URL: BENCH_REDIS_URL }));
    const vcs = instances.map((instance) => instance.vc);
    nginx = await startNginx(dir, [vcs.slice(0, 1), vcs]);
    const [one, two] = nginx.ports.map((port) => `http://127.0.0.1:${port}`);
    const results: LoadResult[] = [];
    for (const [origin, size] of [
      [one, 1],
      [two, 2],
    ] as const) {
      await options.check(origin);
      const answered = await upstreams(origin, options.requests(), 10);
      if (answered.size !== size) throw new Error(`nginx at ${origin} reached ${[...answered].join(', ')}, not ${size} instances`);
      results.push(await measure(origin, options.requests(), options.settings));
    }
    return { one: results[0], two: results[1] };
  } finally {
    if (nginx) await stopChild(nginx.child);
    await Promise.all(instances.map((instance) => instance.server.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
