import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DestinationStream } from 'pino';
import pg from 'pg';
import Database from 'better-sqlite3';
import { Clock } from '#src/platform/common/clock.js';
import { bind } from '#src/platform/database/sql.js';
import { COMPONENTS, URL_VARIABLES, type ComponentName } from '#src/platform/config/components.js';
import { loadConfig, type AppConfig } from '#src/platform/config/app-config.js';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { FirmwareService, type FirmwareView } from '#src/domain/firmware/firmware.service.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import type { RolloutView } from '#src/domain/rollout/rollout-progress.service.js';
import { startServer, type RunningServer } from '#src/app/server.js';
import { OperatorTokenService } from '#src/domain/access/operator-token.service.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { freePort } from './free-port.js';

/** Database engine of the e2e specs: `FIRMLEDGER_TEST_DB=postgres`, else SQLite (the default). */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env['FIRMLEDGER_TEST_DB'] === 'postgres' ? 'postgres' : 'sqlite';

/** A PostgreSQL database the test role may create databases from (trust auth on this machine). */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The Redis server of the specs that run with `REDIS_URL`. */
export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** A fresh, empty database for one app (or a group of instances sharing it). */
export interface TestDatabase {
  engine: 'sqlite' | 'postgres';
  /** Its own temporary data directory (SQLite file, JWT secret, firmware artifacts). */
  dataDir: string;
  /** `DATA_DIR`, plus `DATABASE_URL` on PostgreSQL: what a server or CLI process needs to use it. */
  env: { DATA_DIR: string; DATABASE_URL?: string };
  /** Runs one statement (`$1`, `$2`… placeholders work on both engines); returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs one statement; returns how many rows it changed. */
  execute(sql: string, params?: unknown[]): Promise<number>;
  /** Drops the database (PostgreSQL) and removes the data directory. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database on `engine`: SQLite in a new temporary data directory, or on
 * PostgreSQL a new database `fl_e2e_<random>` next to {@link TEST_DATABASE_URL} (dropped again
 * by `drop()`). The server's migrations create the schema when it starts.
 */
export async function createTestDatabase(engine: 'sqlite' | 'postgres' = TEST_ENGINE): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), 'firmledger-e2e-'));
  if (engine === 'sqlite') {
    const file = join(dataDir, 'firmledger.sqlite');
    // better-sqlite3, the app's default driver: two copies of the SQLite library in one process
    // (sqlite3's and better-sqlite3's) do not see each other's POSIX locks, and closing one
    // connection's file drops the other's locks, which corrupts a database both write.
    const withDb = <T>(use: (db: Database.Database) => T): T => {
      const db = new Database(file);
      try {
        return use(db);
      } finally {
        db.close();
      }
    };
    return {
      engine,
      dataDir,
      env: { DATA_DIR: dataDir },
      query: <T>(sql: string, params: unknown[] = []) =>
        Promise.resolve().then(() => {
          const [text, values] = bind('better-sqlite3', sql, params);
          return withDb((db) => db.prepare(text).all(...values) as T[]);
        }),
      execute: (sql, params = []) =>
        Promise.resolve().then(() => {
          const [text, values] = bind('better-sqlite3', sql, params);
          return withDb((db) => db.prepare(text).run(...values).changes);
        }),
      drop: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `fl_e2e_${randomBytes(8).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.href;
  const withClient = async <T>(use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };
  return {
    engine,
    dataDir,
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    query: <T>(sql: string, params: unknown[] = []) => withClient(async (client) => (await client.query(sql, params)).rows as T[]),
    execute: (sql, params = []) => withClient(async (client) => (await client.query(sql, params)).rowCount ?? 0),
    async drop() {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs a statement on the PostgreSQL server's {@link TEST_DATABASE_URL} database. */
async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL at ${TEST_DATABASE_URL} is not reachable (set TEST_DATABASE_URL): ${String(error)}`);
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A clock tests set and advance; starts at the real time so tokens verify normally. */
export class TestClock extends Clock {
  constructor(public ms = Date.now()) {
    super();
  }
  now(): number {
    return this.ms;
  }
  /** Moves the clock forward by `seconds`. */
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export { freePort };

/**
 * Base URLs per component variable (`AUTH_URL`, …, `DDI_URL`); `{port}` or `{portN}` placeholders
 * are replaced by free ports (N is the component's index in {@link COMPONENTS}).
 */
export type BaseUrls = Partial<
  Record<'AUTH_URL' | 'VC_URL' | 'BC_URL' | 'OPERATOR_URL' | 'IPFS_URL' | 'TOOLS_URL' | 'DDI_URL' | 'MENDER_URL', string>
>;

/** A tenant with one device key, as the operator CLI creates them. */
export interface TestTenant {
  id: number;
  name: string;
  customerKey: string;
  deviceKey: string;
  deviceKeyId: number;
  deviceType: string;
}

/** The running application and helpers to seed it and speak to it like a device. */
export interface TestApp {
  server: RunningServer;
  config: AppConfig;
  clock: TestClock;
  /** The app's own fresh database (see {@link createTestDatabase}). */
  database: TestDatabase;
  /** Base URLs as clients reach them (127.0.0.1), without a trailing slash. */
  urls: Record<ComponentName, string>;
  createTenant(name?: string, deviceType?: string): Promise<TestTenant>;
  /** A new device key of the tenant; `singleDevice`: byte-identical logins are replays (docs/decisions.md §4). */
  createDeviceKey(tenant: TestTenant, deviceType: string, options?: { singleDevice?: boolean }): Promise<TestTenant>;
  publishFirmware(tenant: TestTenant, version: string, bytes: Buffer, deviceType?: string): Promise<FirmwareView>;
  createGroup(tenant: TestTenant, name: string, macs: string[]): Promise<{ id: number; name: string }>;
  /** Plans and (unless `start: false`) starts a rollout. */
  createRollout(
    tenant: TestTenant,
    plan: { name?: string; firmwareId: number; group: string; priority?: number; startDate?: string; downgrade?: boolean; start?: boolean },
  ): Promise<RolloutView>;
  /** Logs in as a device of the tenant, with the clock's current time; returns the token. */
  login(tenant: TestTenant): Promise<string>;
  /** Creates an operator token (as `firmledger operator-token create` does); returns the token. */
  createOperatorToken(name?: string): Promise<string>;
  /** The causes the server logged for the 500 answers it gave so far (see {@link ServerErrorWatch}). */
  serverErrors(): string[];
  /** Stops the server; rejects when it answered a 500 the spec did not allow (`allowServerErrors`). */
  close(): Promise<void>;
}

/** Options of {@link startTestApp} and {@link startInstance}. */
export interface TestAppOptions {
  /** Receives the JSON log lines at `LOG_LEVEL` (else only fatal ones are printed, to keep test output quiet). */
  logDestination?: DestinationStream;
  /**
   * Lets the server answer 500 without failing the spec: for specs that break the database or
   * the disk under the server on purpose. Otherwise every 500 is a defect (bad input must be
   * a 4xx), and closing the app fails the spec with the cause the server logged.
   */
  allowServerErrors?: boolean;
  /**
   * The `DATABASE_URL` the server gets in place of the test database's own (PostgreSQL): e.g. the
   * same database through a `TcpForwarder` (tcp-forwarder.ts) a spec can cut.
   */
  databaseUrl?: (url: string) => string;
}

/**
 * Watches a server's log for the lines the error filter writes for each 500 answer (context
 * `HttpError`: an error that escaped every rule, such as a database driver refusing a value),
 * so a spec fails on any such answer even when it only checked that the status was not 2xx.
 */
export class ServerErrorWatch implements DestinationStream {
  readonly causes: string[] = [];

  constructor(private readonly forward: DestinationStream | undefined) {}

  write(line: string): void {
    if (line.includes('"HttpError"')) {
      const entry = JSON.parse(line) as { level?: string; context?: string; msg?: string };
      if (entry.context === 'HttpError' && (entry.level === 'error' || entry.level === 'fatal')) this.causes.push(entry.msg ?? line);
    }
    if (this.forward) this.forward.write(line);
    else if (line.includes('"level":"fatal"')) process.stdout.write(line);
  }

  /** Throws when the server answered a 500, naming the first cause. */
  check(): void {
    if (this.causes.length > 0) {
      throw new Error(`the server answered ${this.causes.length} request(s) with 500; the first cause: ${this.causes[0]}`);
    }
  }
}

let tenantCounter = 0;

/**
 * Starts the real application on real sockets, with a fresh database (migrations run): SQLite
 * in a temporary data directory, or a new PostgreSQL database when `FIRMLEDGER_TEST_DB=postgres`.
 * With `REDIS_URL` in `env`, the app's Redis keys carry a prefix of their own. Components get
 * separate ports unless `urls` says otherwise.
 * @param env extra environment variables (e.g. `LOGIN_RATE_LIMIT`).
 * @param urls base URLs per component; `{port}` placeholders are replaced by free ports.
 * @param options see {@link TestAppOptions}: closing the app fails the spec when the server answered
 *   a 500, unless `allowServerErrors`.
 */
export async function startTestApp(env: Record<string, string> = {}, urls?: BaseUrls, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  let config: AppConfig;
  let clock: TestClock;
  let running: RunningServer;
  let serverErrors: () => string[];
  try {
    ({ config, clock, server: running, serverErrors } = await startInstance(database, env, urls, options));
  } catch (error) {
    await database.drop();
    throw error;
  }
  let closing: Promise<void> | undefined;
  // Closing twice (a spec stops the server itself, then the harness cleans up) closes once.
  const server: RunningServer = { app: running.app, close: () => (closing ??= running.close()) };
  const get = <T>(type: new (...args: never[]) => T): T => server.app.get(type);
  const base = (url: URL) => url.href.replace(/\/$/, '');

  const app: TestApp = {
    server,
    config,
    clock,
    database,
    urls: Object.fromEntries(COMPONENTS.map((c) => [c, base(config.urls[c])])) as Record<ComponentName, string>,
    async createTenant(name = `tenant-${++tenantCounter}-${Date.now()}`, deviceType = 'ESP32') {
      const tenant = await get(TenantService).createTenant(name);
      const key = await get(TenantService).createDeviceKey(tenant.id, deviceType);
      return { id: tenant.id, name, customerKey: tenant.customerKey, deviceKey: key.key, deviceKeyId: key.id, deviceType };
    },
    async createDeviceKey(tenant, deviceType, options = {}) {
      const key = await get(TenantService).createDeviceKey(tenant.id, deviceType, undefined, options);
      return { ...tenant, deviceKey: key.key, deviceKeyId: key.id, deviceType };
    },
    publishFirmware(tenant, version, bytes, deviceType = tenant.deviceType) {
      return get(FirmwareService).publish({ tenantId: tenant.id, version, deviceType }, Readable.from([bytes]));
    },
    async createGroup(tenant, name, macs) {
      const group = await get(GroupService).create(tenant.id, name);
      if (macs.length) await get(GroupService).addMembers(tenant.id, name, macs);
      return { id: group.id, name: group.name };
    },
    async createRollout(tenant, plan) {
      const created = await get(RolloutPlanService).create({
        tenantId: tenant.id,
        name: plan.name ?? 'rollout',
        firmwareId: plan.firmwareId,
        group: plan.group,
        priority: plan.priority ?? 1,
        startDate: plan.startDate ?? '2020-01-01 00:00:00',
        downgrade: plan.downgrade,
      });
      return plan.start === false ? created : get(RolloutPlanService).apply(tenant.id, created.id, 'start');
    },
    async login(tenant) {
      // Devices sharing a key may send byte-identical logins (docs/decisions.md §4): the current time.
      const timestamp = Math.floor(clock.now() / 1000);
      const response = await post(`${app.urls.auth}/auth/login`, signedLoginBody(tenant, timestamp));
      if (response.status !== 200) throw new Error(`login failed: ${response.status} ${JSON.stringify(response.body)}`);
      return (response.body as { token: string }).token;
    },
    async createOperatorToken(name = 'e2e') {
      return (await get(OperatorTokenService).create(name)).token;
    },
    serverErrors,
    async close() {
      try {
        await server.close();
      } finally {
        await database.drop();
      }
    },
  };
  return app;
}

/**
 * Starts one more server on `database` (instances sharing a database, as behind a load
 * balancer). The caller closes it; the database outlives it. Closing rejects when the server
 * answered a 500, unless `options.allowServerErrors` (see {@link TestAppOptions}).
 */
export async function startInstance(
  database: TestDatabase,
  env: Record<string, string> = {},
  urls?: BaseUrls,
  options: TestAppOptions = {},
): Promise<StartedInstance> {
  // A port found free may be taken before the server binds it (by a connection of a spec running
  // alongside): the server closes what it opened and the instance starts again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(database, env, urls, options);
    } catch (error) {
      if (attempt === 3 || (error as { code?: unknown } | null)?.code !== 'EADDRINUSE') throw error;
    }
  }
}

/** What {@link startInstance} answers. */
type StartedInstance = { server: RunningServer; config: AppConfig; clock: TestClock; serverErrors: () => string[] };

async function startOnFreePorts(
  database: TestDatabase,
  env: Record<string, string>,
  urls: BaseUrls | undefined,
  options: TestAppOptions,
): Promise<StartedInstance> {
  const ports: number[] = [];
  // Two draws may return the same port (it was released in between): each component gets its own.
  while (ports.length < COMPONENTS.length) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const fill = (url: string) => url.replace(/\{port(\d)?\}/g, (_, i: string | undefined) => String(ports[Number(i ?? 0)]));
  const given: Partial<Record<string, string>> = urls ?? {};
  const loaded = loadConfig({
    ...Object.fromEntries(
      COMPONENTS.map((component, i) => [URL_VARIABLES[component], fill(given[URL_VARIABLES[component]] ?? `http://127.0.0.1:{port${i}}`)]),
    ),
    LOG_LEVEL: 'error',
    LOGIN_RATE_LIMIT: '1000',
    ...database.env,
    ...(database.env.DATABASE_URL !== undefined && options.databaseUrl
      ? { DATABASE_URL: options.databaseUrl(database.env.DATABASE_URL) }
      : {}),
    ...env,
  });
  // Redis keys of apps on different databases must not meet (device key ids repeat across
  // databases; parallel specs share the Redis server); instances of one database share them.
  const config: AppConfig = { ...loaded, redisKeyPrefix: `firmledger:test:${redisNamespace(database)}:` };
  const clock = new TestClock();
  // The error filter logs each 500 at level error: the watch needs LOG_LEVEL to include it.
  const watch = new ServerErrorWatch(options.logDestination);
  const started = await startServer(config, { clock, logDestination: watch });
  const server: RunningServer = {
    app: started.app,
    async close() {
      await started.close();
      if (!options.allowServerErrors) watch.check();
    },
  };
  return { server, config, clock, serverErrors: () => [...watch.causes] };
}

const namespaces = new WeakMap<TestDatabase, string>();
function redisNamespace(database: TestDatabase): string {
  let namespace = namespaces.get(database);
  if (!namespace) namespaces.set(database, (namespace = randomBytes(6).toString('hex')));
  return namespace;
}

/** A login body as field devices sign it (docs/decisions.md §1): HMAC-SHA256(customer key, timestamp + device key). */
export function signedLoginBody(tenant: Pick<TestTenant, 'customerKey' | 'deviceKey'>, timestamp: number): Record<string, unknown> {
  return {
    device_key: tenant.deviceKey,
    timestamp,
    device_signature: deviceSignature(tenant.customerKey, String(timestamp), tenant.deviceKey),
  };
}

/** An HTTP answer: status, headers, parsed JSON body (or text when not JSON), raw bytes. */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
  bytes: Buffer;
}

/**
 * Sends a request the way field devices do (JSON body, `x-access-token` header), or as an
 * operator (`bearer`: `Authorization: Bearer <operator token>`).
 */
export async function request(
  method: string,
  url: string,
  options: { token?: string; bearer?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...(options.token ? { 'x-access-token': options.token } : {}),
    ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
    ...options.headers,
  };
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed, text, bytes };
}

export const post = (url: string, body: unknown, token?: string): Promise<Answer> => request('POST', url, { body, token });
export const get = (url: string, token?: string): Promise<Answer> => request('GET', url, { token });
