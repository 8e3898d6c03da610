/**
 * `npm run bench:reports`: success reports alone, repeatable in a couple of minutes, to find out
 * what bounds them (docs/scaling.md, "Success reports"). Seeds the benchmark's fleet
 * (bench/seed.ts) in a database of its own, starts the app, lets `--reports` devices be offered a
 * rollout and measures their success reports and then their confirming polls
 * (bench/confirmations.ts), each device once, at `--connections` keep-alive connections.
 * On PostgreSQL it samples what the app's backends wait on during the reports
 * (`pg_stat_activity`, every 200 ms): row locks (Lock/transactionid, Lock/tuple), the ledger's
 * advisory lock (Lock/advisory), the client (Client/ClientRead: a round trip), or nothing (CPU).
 *
 *   npm run bench:reports                                   PostgreSQL, 20,000 devices, 20,000 reports, 50 connections
 *   npm run bench:reports -- --engine sqlite                the same on SQLite (default driver)
 *   npm run bench:reports -- --devices 100000 --reports 20000 --connections 50
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { measureConfirmations } from './confirmations.js';
import { DEVICE_TYPES, devicesArgument, type DeviceType } from './fleet.js';
import type { LoadResult } from './load.js';
import { machineInfo } from './machine.js';
import { freePort, ServerProcess } from './processes.js';
import { createBenchDatabase, seed, type SeededTenant } from './seed.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FLEET = devicesArgument() ?? 20_000;
const REPORTS = numberArgument('--reports', 20_000);
const CONNECTIONS = numberArgument('--connections', 50);
const engineAt = process.argv.indexOf('--engine');
const POSTGRES = !(engineAt >= 0 && process.argv[engineAt + 1] === 'sqlite');
/** Tokens per device type (any token of a type serves every device of it). */
const TOKENS_PER_TYPE = 20;
/** Milliseconds between two samples of `pg_stat_activity`. */
const SAMPLE_EVERY = 200;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** `--name N` as a whole number ≥ 1, or `fallback` without it. @throws Error on anything else. */
function numberArgument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number((process.argv[at + 1] ?? '').replace(/[_,]/g, ''));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} takes a whole number of at least 1`);
  return value;
}

function describe(result: LoadResult): string {
  const failures = result.failures ? `, ${result.failures} failures ${JSON.stringify(result.statuses)}` : '';
  return `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms (${result.requests} requests${failures})`;
}

/** `count` tokens per device type, each from a login of its own with the type's device key. */
async function typeTokens(auth: string, tenant: SeededTenant, count: number): Promise<Record<DeviceType, string[]>> {
  const tokens = {} as Record<DeviceType, string[]>;
  const base = Math.floor(Date.now() / 1000) - 200;
  for (const type of DEVICE_TYPES) {
    tokens[type] = [];
    for (let i = 0; i < count; i++) {
      const timestamp = base + i; // a (key, timestamp) pair logs in once (docs/decisions.md §4)
      const response = await fetch(`${auth}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          device_key: tenant.typeKeys[type],
          timestamp,
          device_signature: deviceSignature(tenant.customerKey, String(timestamp), tenant.typeKeys[type]),
        }),
      });
      const body = (await response.json()) as { token?: string };
      if (!body.token) throw new Error(`login failed: ${response.status} ${JSON.stringify(body)}`);
      tokens[type].push(body.token);
    }
  }
  return tokens;
}

/** Samples of `pg_stat_activity`, taken between `start()` and `pause()`. */
interface Sampler {
  start(): void;
  pause(): void;
  stop(): Promise<{ tally: Map<string, number>; samples: number; shown: string[][] }>;
}

/**
 * Samples the app's backends (`application_name` firmledger) every {@link SAMPLE_EVERY} ms until
 * `stop()`, while started: how often each (wait event type, wait event, state) was seen, and the statements of
 * a few samples.
 */
function sampleActivity(databaseUrl: string): Sampler {
  const client = new pg.Client({ connectionString: databaseUrl });
  const tally = new Map<string, number>();
  const shown: string[][] = [];
  let samples = 0;
  let running = true;
  let active = false;
  const loop = (async () => {
    await client.connect();
    while (running) {
      if (!active) {
        await new Promise((wake) => setTimeout(wake, SAMPLE_EVERY));
        continue;
      }
      const { rows } = await client.query<{ wait_event_type: string | null; wait_event: string | null; state: string | null; q: string }>(
        `SELECT wait_event_type, wait_event, state, left(regexp_replace(query, '\\s+', ' ', 'g'), 80) AS q
         FROM pg_stat_activity WHERE application_name = 'firmledger' AND datname = current_database()`,
      );
      samples++;
      for (const row of rows) {
        const key = `${row.wait_event_type ?? '-'}/${row.wait_event ?? '-'} (${row.state ?? '-'})`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
      }
      if (samples % 25 === 5 && shown.length < 4) {
        shown.push(rows.map((r) => `${r.wait_event_type ?? '-'}/${r.wait_event ?? '-'} ${r.state ?? '-'}: ${r.q}`));
      }
      await new Promise((wake) => setTimeout(wake, SAMPLE_EVERY));
    }
    await client.end();
  })();
  return {
    start: () => (active = true),
    pause: () => (active = false),
    stop: async () => {
      running = false;
      await loop;
      return { tally, samples, shown };
    },
  };
}

async function main(): Promise<void> {
  const machine = machineInfo();
  log(`bench:reports on ${POSTGRES ? 'PostgreSQL' : 'SQLite'}: ${FLEET} devices, ${REPORTS} reports, ${CONNECTIONS} connections`);
  log(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadBefore}; ${ROOT}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'firmledger-bench-reports-'));
  const database = POSTGRES ? await createBenchDatabase() : undefined;
  let server: ServerProcess | undefined;
  try {
    const seeded = await seed(dataDir, FLEET, 10, 0, database?.url);
    log(`seeded in ${seeded.seconds.toFixed(1)} s`);
    const names = ['AUTH_URL', 'VC_URL', 'BC_URL', 'OPERATOR_URL', 'IPFS_URL', 'TOOLS_URL', 'DDI_URL', 'MENDER_URL'] as const;
    const urls: Record<string, string> = {};
    for (const name of names) urls[name] = `http://127.0.0.1:${await freePort()}`;
    server = await ServerProcess.start(
      join(ROOT, 'dist/src/main.js'),
      { ...urls, DATA_DIR: dataDir, LOG_LEVEL: 'error', LOGIN_RATE_LIMIT: '1000000', ...(database ? { DATABASE_URL: database.url } : {}) },
      `${urls['VC_URL']}/`,
    );
    const tokens = await typeTokens(urls['AUTH_URL'], seeded.fleet, TOKENS_PER_TYPE);
    const sampler = database ? sampleActivity(database.url) : undefined;
    let measured;
    try {
      measured = await measureConfirmations(urls['VC_URL'], seeded.fleet, tokens, REPORTS, CONNECTIONS, {
        before: () => sampler?.start(),
        after: () => sampler?.pause(),
        failures: 'count',
      });
    } finally {
      const activity = await sampler?.stop();
      if (activity) {
        log(`pg_stat_activity during the reports, ${activity.samples} samples (backends × samples):`);
        for (const [key, count] of [...activity.tally].sort((a, b) => b[1] - a[1])) log(`  ${String(count).padStart(6)}  ${key}`);
        for (const sample of activity.shown) log(`  sample:\n    ${sample.join('\n    ')}`);
      }
    }
    log(`success reports of ${measured.devices} devices: ${describe(measured.reports)}`);
    log(`their confirming polls: ${describe(measured.polls)}`);
    // The chain and tree the concurrent reports appended to, checked as an operator would.
    const verify = spawnSync(process.execPath, [join(ROOT, 'bin/firmledger.js'), 'ledger', 'verify'], {
      env: { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'error', ...(database ? { DATABASE_URL: database.url } : {}) },
      encoding: 'utf8',
    });
    log(`ledger verify (exit ${verify.status}): ${(verify.stdout + verify.stderr).trim()}`);
    log(`RESULT reports/s ${measured.reports.requestsPerSecond.toFixed(0)} p99 ${measured.reports.p99} ms`);
  } catch (error) {
    if (server) log(`the app's stderr (last 4000 characters):\n${server.errors}`);
    throw error;
  } finally {
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
