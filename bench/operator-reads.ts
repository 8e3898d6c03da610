/**
 * The operator console's reads, timed one at a time (an operator clicking, not a load test):
 * each request the console's pages make, median, p99 and slowest after warm-ups, with
 * `GET /healthz` on the same listener as the baseline of what any request costs. Used by
 * `npm run bench:console` (bench/console.ts) and `npm run bench` (bench/run.ts), SQLite and PostgreSQL.
 * Target (the million-device issue): every operator list, search and filter and
 * `GET /tenants/:tenant/rollouts/:id` at p99 < 100 ms.
 */
import { NestFactory } from '@nestjs/core';
import { CliModule } from '#src/cli/cli.module.js';
import { loadConfig, prepareDataDir } from '#src/platform/config/app-config.js';
import { OperatorTokenService } from '#src/domain/access/operator-token.service.js';
import { OperatorUserService } from '#src/domain/access/operator-user.service.js';
import { fleetDevice } from './fleet.js';
import type { SeededTenant } from './seed.js';

/** p99 target of each operator read, ms. */
export const OPERATOR_P99_TARGET_MS = 100;

/** The operator user the bench signs in as (a viewer: reads only). */
export const OPERATOR_USER = { username: 'bench', password: 'bench console password' };

/** One timed request: times in ms over `runs` runs after the warm-ups. */
export interface OperatorRead {
  page: string;
  path: string;
  median: number;
  p99: number;
  slowest: number;
  runs: number;
  /** `items / total` of a list, `n devices` of the fleet overview, else empty. */
  shape: string;
}

/**
 * Creates the bench's operator user (a viewer, for the reads) in a seeded data dir (and database,
 * when `databaseUrl` is given), before the app starts; returns an admin operator token for the
 * scenarios that change something (a rollout's start).
 */
export async function createOperatorUser(dataDir: string, databaseUrl?: string): Promise<string> {
  const context = await NestFactory.createApplicationContext(
    CliModule.forRoot(
      prepareDataDir(
        loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}) }),
      ),
    ),
    { logger: ['error'], abortOnError: false },
  );
  try {
    await context.get(OperatorUserService).create(OPERATOR_USER.username, OPERATOR_USER.password, 'viewer');
    return (await context.get(OperatorTokenService).create('bench')).token;
  } finally {
    await context.close();
  }
}

/** Signs the bench's operator user in on `operator` (the OPERATOR_URL listener); returns the session cookie. */
export async function signIn(operator: string): Promise<string> {
  const answer = await fetch(`${operator}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OPERATOR_USER),
  });
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0];
  if (answer.status !== 200 || !cookie) throw new Error(`operator sign-in failed: ${answer.status}`);
  return cookie;
}

/** The requests the console's pages make against a seeded tenant: `[page, path]`, the path without a leading slash. */
export function operatorRequests(tenant: SeededTenant): [page: string, path: string][] {
  const t = `tenants/${tenant.name}`;
  const lastMac = fleetDevice(tenant.devices - 1, tenant.macPrefix).mac;
  const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
  const halfHourAgo = new Date(Date.now() - 1_800_000).toISOString();
  const lastPage = Math.ceil(tenant.devices / 50);
  // The keyset cursor of the last page: the mac of the device before it (macs sort as the fleet's indexes do);
  // the same for the members of `everyone`, the whole fleet.
  const beforeLastPage = fleetDevice((lastPage - 1) * 50 - 1, tenant.macPrefix).mac;
  // The deepest page by offset: pages past the middle are read from the end.
  const middlePage = Math.ceil(lastPage / 2);
  return [
    ['baseline', 'healthz'],
    ['overview', `${t}/fleet`],
    ['overview', `${t}/rollouts?status=active&per_page=20`],
    ['overview', 'ledger/entries?order=desc&per_page=1'],
    ['devices', `${t}/devices?per_page=50`],
    ['devices', `${t}/devices?per_page=50&page=${middlePage}`],
    ['devices', `${t}/devices?per_page=50&after=${encodeURIComponent(beforeLastPage)}`],
    ['devices', `${t}/devices?per_page=50&q=${encodeURIComponent(lastMac.slice(-8))}`],
    ['devices', `${t}/devices?per_page=50&q=K%C3%BChlhaus`],
    ['devices', `${t}/devices?per_page=50&group=region-2&firmware_version=1.1.0&device_type=ESP32`],
    ['devices', `${t}/devices?per_page=50&seen_since=${encodeURIComponent(halfHourAgo)}`],
    ['devices', `${t}/devices?per_page=50&not_seen_since=${encodeURIComponent(dayAgo)}`],
    ['device', `${t}/devices/${encodeURIComponent(lastMac)}`],
    ['groups', `${t}/groups?per_page=50`],
    ['group', `${t}/groups/everyone?per_page=50&page=${middlePage}`],
    ['group', `${t}/groups/everyone?per_page=50&after=${encodeURIComponent(beforeLastPage)}`],
    ['rollouts', `${t}/rollouts?per_page=50`],
    ['rollout', `${t}/rollouts/1`],
    ['ledger', 'ledger/entries?order=desc&per_page=50'],
  ];
}

/** A warm-up run slower than this ends the warm-ups, milliseconds. */
const SLOW_WARMUP_MS = 1000;

/** Timed runs of a request at least, whatever the time budget. */
const MIN_TIMED_RUNS = 5;

/**
 * Times each of {@link operatorRequests} on `operator` with the session `cookie`, one request at
 * a time: `warmup` untimed runs, then `runs` timed ones, or fewer (at least
 * {@link MIN_TIMED_RUNS}) once a request's timed runs took `budgetMs` (a read of seconds at a
 * million devices would otherwise hold the benchmark for many minutes). A non-200 answer throws.
 * @param onRead called with each request's result as it is measured (progress)
 */
export async function measureOperatorReads(
  operator: string,
  cookie: string,
  tenant: SeededTenant,
  options: { runs?: number; warmup?: number; budgetMs?: number; onRead?: (read: OperatorRead) => void } = {},
): Promise<OperatorRead[]> {
  const wanted = options.runs ?? 50;
  const warmup = options.warmup ?? 3;
  const budgetMs = options.budgetMs ?? 15_000;
  const reads: OperatorRead[] = [];
  for (const [page, path] of operatorRequests(tenant)) {
    const times: number[] = [];
    let shape = '';
    let spent = 0;
    for (let i = 0; i < warmup + wanted && !(times.length >= MIN_TIMED_RUNS && spent > budgetMs); i++) {
      const started = performance.now();
      const answer = await fetch(`${operator}/${path}`, { headers: { cookie } });
      const body = (await answer.json()) as { items?: unknown[]; total?: number; devices?: unknown };
      if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(body)}`);
      const took = performance.now() - started;
      if (i >= warmup) {
        times.push(took);
        spent += took;
      } else if (took > SLOW_WARMUP_MS) i = warmup - 1; // a slow read is warm after one run

      shape = body.items ? `${body.items.length} / ${body.total}` : typeof body.devices === 'number' ? `${body.devices} devices` : '';
    }
    times.sort((a, b) => a - b);
    const runs = times.length;
    const read: OperatorRead = {
      page,
      path,
      median: times[runs >> 1],
      p99: times[Math.min(runs - 1, Math.ceil(runs * 0.99) - 1)],
      slowest: times[runs - 1],
      runs,
      shape,
    };
    options.onRead?.(read);
    reads.push(read);
  }
  return reads;
}

/** A markdown table of operator reads (console output of bench:console). */
export function operatorReadsTable(reads: OperatorRead[]): string {
  const lines = ['| Page | Request | Median ms | p99 ms | Slowest ms | Items / total |', '| --- | --- | ---: | ---: | ---: | --- |'];
  for (const r of reads) lines.push(operatorReadLine(r));
  return lines.join('\n');
}

/** One row of {@link operatorReadsTable}. */
export function operatorReadLine(r: OperatorRead): string {
  return `| ${r.page} | \`GET /${r.path.replace(/\|/g, '\\|')}\` | ${r.median.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.slowest.toFixed(1)} | ${r.shape} |`;
}
