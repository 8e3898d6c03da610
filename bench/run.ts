/**
 * `npm run bench`: the device-facing hot paths of the real app against a bare-Fastify ceiling,
 * measured in one run on one machine with the same autocannon settings, plus report time and
 * server memory. Writes `bench/RESULTS.md` (full run only).
 *
 *   npm run bench                       full run (100,000 devices, 10 s per scenario; several minutes)
 *   npm run bench -- --devices 1000000  the same with another fleet size (writes bench/RESULTS-<n>.md)
 *   npm run bench -- --no-postgres      without the PostgreSQL scenarios
 *   npm run bench -- --quick            smoke run (small fleet, 1 s per scenario); writes nothing
 *
 * The operator console's reads (bench/operator-reads.ts) are timed one at a time on the default
 * SQLite driver and on PostgreSQL, target p99 < 100 ms each.
 *
 * The device scenarios run on SQLite (both drivers) and on PostgreSQL (a database of its own,
 * created beside `BENCH_DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/test, and
 * dropped at the end).
 */
import * as prettier from 'prettier';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { ENVIRONMENT } from '#src/platform/config/environment.js';
import { devicesArgument, fleetDevice, fleetProtocol, loginPairs, type DeviceType, type FleetProtocol } from './fleet.js';
import { measureConfirmations } from './confirmations.js';
import { measure, type LoadResult, type LoadSettings, type NextRequest } from './load.js';
import { machineInfo, versions } from './machine.js';
import { createOperatorUser, measureOperatorReads, signIn, type OperatorRead } from './operator-reads.js';
import { measureReport, type ReportMeasurement } from './report-run.js';
import { renderResults, type Row, type ReportRow } from './results.js';
import { createBenchDatabase, seed, type SeededTenant } from './seed.js';
import { freePort, listenerUrls, ServerProcess } from './processes.js';
import { INSTANCES_TARGET, measureInstances, type InstancesResult } from './instances.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist/src/main.js');
const CEILING = join(ROOT, 'dist/bench/ceiling-server.js');

const quick = process.argv.includes('--quick');
const settings: LoadSettings = quick ? { connections: 50, duration: 1, warmup: 1 } : { connections: 50, duration: 10, warmup: 3 };
const DEVICES = devicesArgument();
const FLEET = DEVICES ?? (quick ? 5_000 : 100_000);
const POSTGRES = !process.argv.includes('--no-postgres');
const SMALL = quick ? 1_000 : 10_000;
/** Device keys of the login scenario: at most `LOGIN_KEYS` × 501 logins (warm-up included), enough for 40,000 req/s. */
const LOGIN_KEYS = 1024;
/** Logins per client IP and device key per window for the bench (the config's maximum). */
const LOGIN_RATE_LIMIT = '1000000';
/** Largest extrapolated time at which the PDF of the large fleet is still attempted, seconds. */
const PDF_BUDGET_SECONDS = 180;

const DRIVERS = ['sqlite3', 'better-sqlite3'] as const;
const DEFAULT_DRIVER = ENVIRONMENT.find((v) => v.name === 'SQLITE_DRIVER')?.default ?? 'sqlite3';
/** Most devices a PDF report lists by default (`REPORT_PDF_MAX_DEVICES`): a larger tenant's PDF is refused (422). */
const PDF_MAX_DEVICES = Number(ENVIRONMENT.find((v) => v.name === 'REPORT_PDF_MAX_DEVICES')?.default);

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A running app with its URLs. */
interface App {
  server: ServerProcess;
  auth: string;
  vc: string;
  ddi: string;
  operator: string;
}

async function startApp(dataDir: string, driver: string, databaseUrl?: string, extraEnv: Record<string, string> = {}): Promise<App> {
  const env = {
    ...(await listenerUrls()),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    LOGIN_RATE_LIMIT,
    SQLITE_DRIVER: driver,
    ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
    ...extraEnv,
  };
  const server = await ServerProcess.start(MAIN, env, `${env.VC_URL}/`);
  return { server, auth: env.AUTH_URL, vc: env.VC_URL, ddi: env.DDI_URL, operator: env.OPERATOR_URL };
}

/**
 * next rollout through Nest's pipeline (`ROUTE_SHORTCUTS=false`) and with the route shortcut, each
 * in an app process of its own on the same data, the same requests, alternating (off, on, off, on:
 * the machine's drift falls on both): what the shortcut buys. Both validate and serialize with the
 * route's compiled JSON Schemas.
 */
async function shortcutComparison(dataDir: string, driver: string, fleet: SeededTenant): Promise<{ off: LoadResult[]; on: LoadResult[] }> {
  const measured: Record<'off' | 'on', LoadResult[]> = { off: [], on: [] };
  for (let round = 0; round < (quick ? 1 : 2); round++) {
    for (const mode of ['off', 'on'] as const) {
      const app = await startApp(dataDir, driver, undefined, { ROUTE_SHORTCUTS: mode === 'on' ? 'true' : 'false' });
      try {
        const tokens = await typeTokens(app, fleet);
        await checkNextRollout(app, nextRolloutRequests(fleet, tokens));
        const result = await measure(app.vc, nextRolloutRequests(fleet, tokens), settings, { pid: app.server.pid });
        measured[mode].push(result);
        log(`[${driver}] next rollout, route shortcut ${mode}: ${describe(result)}`);
      } finally {
        await app.server.stop();
      }
    }
  }
  return measured;
}

/** The last login timestamp used with each device key. */
const lastTimestamps = new Map<string, number>();

/** Logs in with a device key; each call a fresh timestamp for that key (a pair logs in once, docs/decisions.md §4). */
async function login(app: App, tenant: SeededTenant, deviceKey: string): Promise<string> {
  const timestamp = Math.max((lastTimestamps.get(deviceKey) ?? 0) + 1, Math.floor(Date.now() / 1000) - 290);
  lastTimestamps.set(deviceKey, timestamp);
  const response = await fetch(`${app.auth}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      device_key: deviceKey,
      timestamp,
      device_signature: deviceSignature(tenant.customerKey, String(timestamp), deviceKey),
    }),
  });
  const body = (await response.json()) as { token?: string; message?: string };
  if (!body.token) throw new Error(`login failed: ${response.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** Devices of the confirmations scenario: each reports its success and confirms once. */
const CONFIRMING = quick ? 1_000 : 20_000;

/** Success reports and confirming polls of {@link CONFIRMING} devices, as two rows of `rows`. */
async function confirmationRows(app: App, tenant: SeededTenant, tokens: Record<DeviceType, string[]>, engine: string, ceiling: LoadResult) {
  const measured = await measureConfirmations(app.vc, tenant, tokens, CONFIRMING, settings.connections, {
    watch: { pid: app.server.pid, postgres: engine === 'PostgreSQL' },
  });
  log(`[${engine}] success reports of ${measured.devices} devices: ${describe(measured.reports)}`);
  log(`[${engine}] their confirming polls: ${describe(measured.polls)}`);
  const each = `${measured.devices.toLocaleString('en')} devices, each once`;
  return [
    { scenario: `POST success/rollout (${engine}; ${each})`, result: measured.reports, ceiling },
    { scenario: `POST next/rollout, confirming (${engine}; the same devices on their new version)`, result: measured.polls, ceiling },
  ];
}

/** Tokens per device type: devices log in for themselves, so requests carry many different tokens. */
const TOKENS_PER_TYPE = quick ? 5 : 100;

async function typeTokens(app: App, tenant: SeededTenant): Promise<Record<DeviceType, string[]>> {
  const tokens = {} as Record<DeviceType, string[]>;
  for (const [type, key] of Object.entries(tenant.typeKeys)) {
    tokens[type as DeviceType] = [];
    for (let i = 0; i < TOKENS_PER_TYPE; i++) tokens[type as DeviceType].push(await login(app, tenant, key));
  }
  return tokens;
}

/**
 * Indexes of the devices of `tenant` that speak `protocol`, in a scattered order (a stride coprime
 * with the fleet size), endlessly.
 */
function* scattered(tenant: SeededTenant, protocol: FleetProtocol): Generator<number> {
  const stride = 7919; // prime, and the fleet sizes used here are not multiples of it
  for (let n = 0; ; n++) {
    const index = (n * stride) % tenant.devices;
    if (fleetProtocol(index) === protocol) yield index;
  }
}

function nextRolloutRequests(tenant: SeededTenant, tokens: Record<DeviceType, string[]>): NextRequest {
  const bodies = Array.from({ length: tenant.devices }, (_, i) => {
    const device = fleetDevice(i, tenant.macPrefix);
    return { body: JSON.stringify({ mac: device.mac, firmware_version: device.version }), token: tokens[device.type][i % TOKENS_PER_TYPE] };
  });
  const order = scattered(tenant, 'asvin');
  return () => {
    const { body, token } = bodies[order.next().value as number];
    return { method: 'POST', path: '/api/device/next/rollout', body, headers: { 'x-access-token': token } };
  };
}

function getDeviceRequests(tenant: SeededTenant, tokens: Record<DeviceType, string[]>): NextRequest {
  const order = scattered(tenant, 'asvin');
  return () => {
    const index = order.next().value as number;
    const device = fleetDevice(index, tenant.macPrefix);
    return {
      method: 'GET',
      path: `/api/device/${device.mac}`,
      headers: { 'x-access-token': tokens[device.type][index % TOKENS_PER_TYPE] },
    };
  };
}

/**
 * hawkBit DDI poll (docs/decisions.md §12): each request the root controller resource of another
 * DDI device of the large tenant (one in `DDI_SHARE`, bench/fleet.ts), its controller id its mac,
 * authorised with the gateway token of its device type (a device key flagged `ddi_gateway`).
 * Devices in an active rollout's group get their open action (a deploymentBase link).
 */
function ddiPollRequests(tenant: SeededTenant): NextRequest {
  const order = scattered(tenant, 'ddi');
  return () => {
    const device = fleetDevice(order.next().value as number, tenant.macPrefix);
    return {
      method: 'GET',
      path: `/${tenant.name}/controller/v1/${device.mac}`,
      headers: { authorization: `GatewayToken ${tenant.gatewayKeys[device.type]}` },
    };
  };
}

/** Sends a few DDI polls and checks each is answered 200; counts those with an open action. */
async function checkDdiPoll(app: App, next: NextRequest): Promise<{ actions: number; checked: number }> {
  let actions = 0;
  const checked = 200;
  for (let i = 0; i < checked; i++) {
    const request = next();
    const response = await fetch(`${app.ddi}${request.path}`, { headers: request.headers });
    const body = (await response.json()) as { _links?: Record<string, unknown> };
    if (response.status !== 200) throw new Error(`DDI poll answered ${response.status} ${JSON.stringify(body)}`);
    if (body._links?.['deploymentBase']) actions++;
  }
  return { actions, checked };
}

function loginRequests(tenant: SeededTenant): NextRequest {
  // Keys of their own (not the ones tokens come from); timestamps within ±250 s of now, inside
  // AUTH_MAX_SKEW_SECONDS (300) for the whole scenario.
  const pairs = loginPairs(tenant.loginKeys.length, Math.floor(Date.now() / 1000), 250);
  return () => {
    const { key, timestamp } = pairs.next().value as { key: number; timestamp: number };
    const deviceKey = tenant.loginKeys[key];
    const signature = deviceSignature(tenant.customerKey, String(timestamp), deviceKey);
    return {
      method: 'POST',
      path: '/auth/login',
      body: `{"device_key":"${deviceKey}","timestamp":${timestamp},"device_signature":"${signature}"}`,
    };
  };
}

/** Sends a few next-rollout requests and checks they are answered as the contract says. */
async function checkNextRollout(app: App, next: NextRequest): Promise<{ offers: number; checked: number }> {
  let offers = 0;
  const checked = 200;
  for (let i = 0; i < checked; i++) {
    const request = next();
    const response = await fetch(`${app.vc}${request.path}`, {
      method: request.method,
      body: request.body,
      headers: { ...request.headers, 'content-type': 'application/json' },
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`next rollout answered ${response.status} ${JSON.stringify(body)}`);
    if (typeof body['rollout_id'] === 'string') offers++;
  }
  return { offers, checked };
}

/**
 * Next rollout measured while PDF reports render: as many as the server renders at once (one per
 * tenant, so the large tenant's and the small one's; only those within `REPORT_PDF_MAX_DEVICES`),
 * each read as it streams. The reports are cut off once the measurement ends (the one of the large
 * tenant lasts far longer).
 */
async function nextRolloutDuringPdfReports(
  app: App,
  seeded: { fleet: SeededTenant; small: SeededTenant },
  tokens: Record<DeviceType, string[]>,
): Promise<{ result: LoadResult; renders: number; streamed: number[] }> {
  const abort = new AbortController();
  const reading: Promise<unknown>[] = [];
  const streamed: number[] = [];
  for (const tenant of [seeded.fleet, seeded.small].filter((t) => t.devices <= PDF_MAX_DEVICES)) {
    const token = await login(app, tenant, tenant.typeKeys.ESP32);
    const response = await fetch(`${app.vc}/api/report/pdf`, { headers: { 'x-access-token': token }, signal: abort.signal });
    if (response.status !== 200) throw new Error(`report pdf answered ${response.status}`);
    const index = streamed.push(0) - 1;
    reading.push(
      (async () => {
        for await (const chunk of response.body ?? []) streamed[index] += (chunk as Uint8Array).byteLength;
      })().catch(() => undefined),
    );
  }
  try {
    const result = await measure(app.vc, nextRolloutRequests(seeded.fleet, tokens), settings, { pid: app.server.pid });
    return { result, renders: reading.length, streamed: [...streamed] };
  } finally {
    abort.abort();
    await Promise.all(reading);
  }
}

/**
 * Next rollout under load while the operator starts the fleet's draft rollout (its targets placed
 * in their waves, docs/decisions.md §10) with `adminToken`, the start sent when the measured run begins: whether
 * device requests go on during a start. The start's seconds and number of targets.
 */
async function nextRolloutDuringStart(
  app: App,
  tenant: SeededTenant,
  tokens: Record<DeviceType, string[]>,
  adminToken: string,
): Promise<{ result: LoadResult; seconds: number; targets: number }> {
  const operator = async (method: 'GET' | 'POST', path: string) => {
    const answer = await fetch(`${app.operator}/tenants/${tenant.name}/${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}`);
    return await answer.json();
  };
  const drafts = (await operator('GET', 'rollouts?status=draft')) as { items: { id: number }[] };
  const draft = drafts.items[0];
  if (draft === undefined) throw new Error('the seeded fleet has no draft rollout');
  let start: Promise<{ seconds: number; targets: number }> | undefined;
  const timer = setTimeout(() => {
    const began = performance.now();
    start = operator('POST', `rollouts/${draft.id}/start`).then((rollout) => ({
      seconds: (performance.now() - began) / 1000,
      targets: (rollout as { targeted: number }).targeted,
    }));
  }, settings.warmup * 1000);
  try {
    const result = await measure(app.vc, nextRolloutRequests(tenant, tokens), settings, { pid: app.server.pid });
    if (start === undefined) throw new Error('the rollout did not start during the run');
    return { result, ...(await start) };
  } finally {
    clearTimeout(timer);
  }
}

/** Operator reads timed one at a time, 50 runs each after 3 warm-ups (fewer in a quick run). */
async function operatorReads(app: App, tenant: SeededTenant, engine: string): Promise<OperatorRead[]> {
  const cookie = await signIn(app.operator);
  return measureOperatorReads(app.operator, cookie, tenant, {
    runs: quick ? 10 : 50,
    warmup: quick ? 1 : 3,
    onRead: (read) => log(`[${engine}] operator GET /${read.path}: median ${read.median.toFixed(1)} ms, p99 ${read.p99.toFixed(1)} ms`),
  });
}

function describe(result: LoadResult): string {
  const failures = result.failures ? `, ${result.failures} failures ${JSON.stringify(result.statuses)}` : '';
  return `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms (${result.requests} requests${failures})`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const machine = machineInfo();
  log(`firmledger bench${quick ? ' (quick)' : ''}: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadBefore}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'firmledger-bench-'));
  try {
    const seeded = await seed(dataDir, FLEET, SMALL, LOGIN_KEYS);
    log(`seeded ${FLEET} + ${SMALL} devices, 10 active rollouts in ${seeded.seconds.toFixed(1)} s`);
    log(`longest rollout start: ${seeded.longestStartSeconds.toFixed(1)} s for ${seeded.longestStartTargets} targets`);
    const adminToken = await createOperatorUser(dataDir);
    const operatorReadRows: { engine: string; reads: OperatorRead[] }[] = [];

    // The ceiling.
    const ceilingPort = await freePort();
    const ceiling = await ServerProcess.start(CEILING, { PORT: String(ceilingPort) }, `http://127.0.0.1:${ceilingPort}/ceiling`);
    const ceilingOrigin = `http://127.0.0.1:${ceilingPort}`;
    const ceilingPost = await measure(
      ceilingOrigin,
      () => ({ method: 'POST', path: '/ceiling', body: '{"mac":"02:B0:00:00:00:01","firmware_version":"1.0.0"}' }),
      settings,
      { pid: ceiling.pid },
    );
    log(`ceiling POST: ${describe(ceilingPost)}`);
    const ceilingGet = await measure(ceilingOrigin, () => ({ method: 'GET', path: '/ceiling' }), settings, { pid: ceiling.pid });
    log(`ceiling GET:  ${describe(ceilingGet)}`);
    await ceiling.stop();

    const rows: Row[] = [
      { scenario: 'ceiling: bare Fastify POST', result: ceilingPost, ceiling: ceilingPost },
      { scenario: 'ceiling: bare Fastify GET', result: ceilingGet, ceiling: ceilingGet },
    ];
    const driverResults = new Map<string, LoadResult>();

    // Next rollout on each driver; the other device endpoints on the default driver.
    const order = [...DRIVERS].sort((a, b) => Number(a === DEFAULT_DRIVER) - Number(b === DEFAULT_DRIVER));
    let shortcut: { off: LoadResult[]; on: LoadResult[] } | undefined;
    for (const driver of order) {
      if (driver === DEFAULT_DRIVER) shortcut = await shortcutComparison(dataDir, driver, seeded.fleet);
      const app = await startApp(dataDir, driver);
      try {
        const tokens = await typeTokens(app, seeded.fleet);
        const check = await checkNextRollout(app, nextRolloutRequests(seeded.fleet, tokens));
        log(`[${driver}] next rollout answers checked: ${check.offers} of ${check.checked} devices offered a rollout`);
        const next = await measure(app.vc, nextRolloutRequests(seeded.fleet, tokens), settings, { pid: app.server.pid });
        log(`[${driver}] next rollout: ${describe(next)}`);
        driverResults.set(driver, next);
        rows.push({
          scenario: `POST next/rollout (${driver}${driver === DEFAULT_DRIVER ? ', default' : ''})`,
          result: next,
          ceiling: ceilingPost,
          target: driver === DEFAULT_DRIVER ? { ratio: 0.4, p99: 10 } : undefined,
        });
        if (driver !== DEFAULT_DRIVER) continue;
        const during = await nextRolloutDuringPdfReports(app, seeded, tokens);
        const streamed = during.streamed.map((bytes) => (bytes / 1e6).toFixed(2)).join(' + ');
        log(
          `[${driver}] next rollout while ${during.renders} PDF reports render: ${describe(during.result)}; ${streamed} MB of PDF streamed`,
        );
        rows.push({
          scenario: `POST next/rollout while ${during.renders} PDF reports render (${driver}; ${streamed} MB of PDF streamed meanwhile)`,
          result: during.result,
          ceiling: ceilingPost,
          target: { ratio: 0.4, p99: 10 },
        });
        const device = await measure(app.vc, getDeviceRequests(seeded.fleet, tokens), settings, { pid: app.server.pid });
        log(`[${driver}] GET device: ${describe(device)}`);
        rows.push({ scenario: `GET api/device/:mac (${driver})`, result: device, ceiling: ceilingGet });
        const ddiCheck = await checkDdiPoll(app, ddiPollRequests(seeded.fleet));
        log(`[${driver}] DDI poll answers checked: ${ddiCheck.actions} of ${ddiCheck.checked} devices have an open action`);
        const ddi = await measure(app.ddi, ddiPollRequests(seeded.fleet), settings, { pid: app.server.pid });
        log(`[${driver}] DDI poll: ${describe(ddi)}`);
        rows.push({
          scenario: `GET DDI controller/v1/:controllerId (${driver}; gateway token)`,
          result: ddi,
          ceiling: ceilingGet,
          target: { ratio: 0.4, p99: 10 },
        });
        const logins = await measure(app.auth, loginRequests(seeded.fleet), settings, { pid: app.server.pid });
        log(`[${driver}] login: ${describe(logins)}`);
        rows.push({ scenario: `POST auth/login (${driver})`, result: logins, ceiling: ceilingPost, target: { ratio: 0.25 } });
        operatorReadRows.push({ engine: `SQLite (${driver})`, reads: await operatorReads(app, seeded.fleet, driver) });
        rows.push(...(await confirmationRows(app, seeded.fleet, tokens, driver, ceilingPost)));
        // Last: it starts the fleet's draft rollout, which changes what the fleet is offered.
        const starting = await nextRolloutDuringStart(app, seeded.fleet, tokens, adminToken);
        log(
          `[${driver}] next rollout while a rollout of ${starting.targets} targets starts (${starting.seconds.toFixed(1)} s): ${describe(starting.result)}`,
        );
        rows.push({
          scenario: `POST next/rollout while a rollout of ${starting.targets.toLocaleString('en')} targets starts (${driver}; the start took ${starting.seconds.toFixed(1)} s)`,
          result: starting.result,
          ceiling: ceilingPost,
          target: { ratio: 0.4, p99: 10 },
        });
      } finally {
        await app.server.stop();
      }
    }

    // The same device scenarios on PostgreSQL, a database of its own seeded the same way.
    let postgresSeedSeconds: number | undefined;
    let pgStart: { seconds: number; targets: number } | undefined;
    let instances: InstancesResult | undefined;
    if (POSTGRES) {
      const database = await createBenchDatabase();
      const pgDir = await mkdtemp(join(tmpdir(), 'firmledger-bench-pg-'));
      try {
        const pgSeeded = await seed(pgDir, FLEET, SMALL, LOGIN_KEYS, database.url);
        postgresSeedSeconds = pgSeeded.seconds;
        pgStart = { seconds: pgSeeded.longestStartSeconds, targets: pgSeeded.longestStartTargets };
        log(`[postgres] seeded ${FLEET} + ${SMALL} devices in ${pgSeeded.seconds.toFixed(1)} s`);
        log(`[postgres] longest rollout start: ${pgSeeded.longestStartSeconds.toFixed(1)} s for ${pgSeeded.longestStartTargets} targets`);
        await createOperatorUser(pgDir, database.url);
        const app = await startApp(pgDir, DEFAULT_DRIVER, database.url);
        try {
          const tokens = await typeTokens(app, pgSeeded.fleet);
          await checkNextRollout(app, nextRolloutRequests(pgSeeded.fleet, tokens));
          const onPostgres = { pid: app.server.pid, postgres: true };
          const next = await measure(app.vc, nextRolloutRequests(pgSeeded.fleet, tokens), settings, onPostgres);
          log(`[postgres] next rollout: ${describe(next)}`);
          rows.push({ scenario: 'POST next/rollout (PostgreSQL)', result: next, ceiling: ceilingPost, target: { ratio: 0.2, p99: 20 } });
          const device = await measure(app.vc, getDeviceRequests(pgSeeded.fleet, tokens), settings, onPostgres);
          log(`[postgres] GET device: ${describe(device)}`);
          rows.push({ scenario: 'GET api/device/:mac (PostgreSQL)', result: device, ceiling: ceilingGet });
          await checkDdiPoll(app, ddiPollRequests(pgSeeded.fleet));
          const ddi = await measure(app.ddi, ddiPollRequests(pgSeeded.fleet), settings, onPostgres);
          log(`[postgres] DDI poll: ${describe(ddi)}`);
          rows.push({ scenario: 'GET DDI controller/v1/:controllerId (PostgreSQL; gateway token)', result: ddi, ceiling: ceilingGet });
          const logins = await measure(app.auth, loginRequests(pgSeeded.fleet), settings, onPostgres);
          log(`[postgres] login: ${describe(logins)}`);
          rows.push({ scenario: 'POST auth/login (PostgreSQL)', result: logins, ceiling: ceilingPost });
          operatorReadRows.push({ engine: 'PostgreSQL', reads: await operatorReads(app, pgSeeded.fleet, 'postgres') });
          rows.push(...(await confirmationRows(app, pgSeeded.fleet, tokens, 'PostgreSQL', ceilingPost)));
          // Next rollout through nginx to one instance and to two, with the same tokens; this app stopped first.
          await app.server.stop();
          instances = await measureInstances({
            start: (env) => startApp(pgDir, DEFAULT_DRIVER, database.url, env),
            requests: () => nextRolloutRequests(pgSeeded.fleet, tokens),
            check: (vc) => checkNextRollout({ ...app, vc }, nextRolloutRequests(pgSeeded.fleet, tokens)),
            settings,
          });
          log(`[postgres] next rollout, 1 instance behind nginx: ${describe(instances.one)}`);
          log(`[postgres] next rollout, 2 instances behind nginx: ${describe(instances.two)}`);
          for (const [count, result] of [
            [1, instances.one],
            [2, instances.two],
          ] as const) {
            rows.push({
              scenario: `POST next/rollout (PostgreSQL, ${count} instance${count > 1 ? 's' : ''} behind nginx, REDIS_URL)`,
              result,
              ceiling: ceilingPost,
            });
          }
        } finally {
          await app.server.stop();
        }
      } finally {
        await database.drop();
        await rm(pgDir, { recursive: true, force: true });
      }
    }

    // Reports: a fresh server per report, so each peak is that report's.
    const reports: ReportRow[] = [];
    let pdfSmallSeconds = Infinity;
    for (const [tenant, size] of [
      [seeded.small, SMALL],
      [seeded.fleet, FLEET],
    ] as const) {
      for (const type of ['json', 'xml', 'pdf'] as const) {
        const row: ReportRow = { type, devices: size };
        if (type === 'pdf' && size > PDF_MAX_DEVICES) {
          const app = await startApp(dataDir, DEFAULT_DRIVER);
          try {
            const response = await fetch(`${app.vc}/api/report/pdf`, {
              headers: { 'x-access-token': await login(app, tenant, tenant.typeKeys.ESP32) },
            });
            if (response.status !== 422) throw new Error(`report pdf of ${size} devices answered ${response.status}, not 422`);
            row.skipped = `refused (422): over REPORT_PDF_MAX_DEVICES (${PDF_MAX_DEVICES.toLocaleString('en')}); use the json or xml report`;
          } finally {
            await app.server.stop();
          }
          log(`report pdf ${size}: ${row.skipped}`);
          reports.push(row);
          continue;
        }
        if (type === 'pdf' && size === FLEET) {
          const estimate = (pdfSmallSeconds * FLEET) / SMALL;
          if (estimate > PDF_BUDGET_SECONDS) {
            row.skipped = `extrapolated from ${SMALL.toLocaleString('en')} devices: ~${estimate.toFixed(0)} s, over the ${PDF_BUDGET_SECONDS} s budget`;
            log(`report pdf ${size}: skipped (${row.skipped})`);
            reports.push(row);
            continue;
          }
        }
        const app = await startApp(dataDir, DEFAULT_DRIVER);
        try {
          const token = await login(app, tenant, tenant.typeKeys.ESP32);
          await new Promise((wake) => setTimeout(wake, 500)); // let start-up garbage settle
          const measured: ReportMeasurement = await measureReport(`${app.vc}/api/report/${type}`, token, app.server.pid, 600_000);
          if (measured.status !== 200) throw new Error(`report ${type} answered ${measured.status}`);
          row.measured = measured;
          if (type === 'pdf' && size === SMALL) pdfSmallSeconds = measured.seconds;
          log(
            `report ${type} ${size}: ${measured.seconds.toFixed(2)} s, ${(measured.bytes / 1e6).toFixed(1)} MB, ` +
              `server RSS ${(measured.rssBefore / 2 ** 20).toFixed(0)} → peak ${(measured.peakRss / 2 ** 20).toFixed(0)} MiB`,
          );
        } finally {
          await app.server.stop();
        }
        reports.push(row);
      }
    }

    const sqlite3 = driverResults.get('sqlite3')!;
    const better = driverResults.get('better-sqlite3')!;
    const markdown = renderResults({
      machine: { ...machine, loadAfter: machineInfo().loadBefore },
      versions: versions(ROOT),
      settings,
      fleet: FLEET,
      small: SMALL,
      memberships: seeded.memberships,
      loginKeys: LOGIN_KEYS,
      loginRateLimit: LOGIN_RATE_LIMIT,
      seedSeconds: seeded.seconds,
      postgresSeedSeconds,
      rolloutStarts: [
        { engine: 'SQLite', seconds: seeded.longestStartSeconds, targets: seeded.longestStartTargets },
        ...(pgStart !== undefined ? [{ engine: 'PostgreSQL', ...pgStart }] : []),
      ],
      rows,
      instances: instances && { ...instances, target: INSTANCES_TARGET },
      reports,
      drivers: { sqlite3, better, defaultDriver: DEFAULT_DRIVER },
      shortcut: shortcut && { ...shortcut, driver: DEFAULT_DRIVER },
      operatorReads: operatorReadRows,
      totalSeconds: (performance.now() - started) / 1000,
    });
    log('');
    log(markdown);
    if (!quick) {
      const file = DEVICES === undefined ? 'bench/RESULTS.md' : `bench/RESULTS-${DEVICES}.md`;
      // Formatted as `npm run lint` checks it (prettier), so a results file lands as written.
      const path = join(ROOT, file);
      await writeFile(path, await prettier.format(markdown, { ...(await prettier.resolveConfig(path)), filepath: path }));
      log(`written to ${file}`);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
