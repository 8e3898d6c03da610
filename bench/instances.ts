import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, type LoadResult, type LoadSettings, type NextRequest } from './load.js';
import { freePort, type ServerProcess } from './processes.js';
import { nginxBinary, startNginx, stopProcess, type RunningNginx } from '#test/support/nginx.js';

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

/**
 * nginx in the foreground under `dir`, one loopback listener per pool, round-robin to the pool's
 * VC URLs. One worker process: the machine's cores are shared with the instances, PostgreSQL and
 * the load generator, and one worker proxies far more than the instances answer. Upstream
 * connections are kept alive (`keepalive`), closed after 4 s idle: before the app's 5 s (Node's
 * default `keepAliveTimeout`), so nginx never reuses one the app is closing. No retry on another
 * instance (`proxy_next_upstream off`), so a failure is counted, not hidden. `X-Upstream` names
 * the instance that answered.
 */
async function startNginxFor(dir: string, pools: string[][]): Promise<RunningNginx & { ports: number[] }> {
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
  return { ...(await startNginx(dir, blocks, ports)), ports };
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
  let nginx: Awaited<ReturnType<typeof startNginxFor>> | undefined;
  try {
    nginxBinary(); // fail before starting anything when nginx is missing
    // One after the other: the database is already migrated, but no two start-ups race.
    for (let i = 0; i < 2; i++) instances.push(await options.start({ REDIS_URL: BENCH_REDIS_URL }));
    const vcs = instances.map((instance) => instance.vc);
    nginx = await startNginxFor(dir, [vcs.slice(0, 1), vcs]);
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
    if (nginx) await stopProcess(nginx.child, 'SIGQUIT');
    await Promise.all(instances.map((instance) => instance.server.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
