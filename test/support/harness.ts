import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DestinationStream } from 'pino';
import { Clock } from '#src/common/clock.js';
import { loadConfig, type AppConfig } from '#src/config/app-config.js';
import { deviceSignature } from '#src/auth/signature.js';
import { FirmwareService, type FirmwareView } from '#src/firmware/firmware.service.js';
import { GroupService } from '#src/rollout/group.service.js';
import { RolloutPlanService, type RolloutView } from '#src/rollout/rollout-plan.service.js';
import { startServer, type RunningServer } from '#src/server.js';
import { OperatorTokenService } from '#src/operator/operator-token.service.js';
import { TenantService } from '#src/tenant/tenant.service.js';

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

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

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
  /** Base URLs as clients reach them (127.0.0.1), without a trailing slash. */
  urls: { auth: string; vc: string; bc: string; operator: string };
  createTenant(name?: string, deviceType?: string): Promise<TestTenant>;
  createDeviceKey(tenant: TestTenant, deviceType: string): Promise<TestTenant>;
  publishFirmware(tenant: TestTenant, version: string, bytes: Buffer, deviceType?: string): Promise<FirmwareView>;
  createGroup(tenant: TestTenant, name: string, macs: string[]): Promise<{ id: number; name: string }>;
  /** Plans and (unless `start: false`) starts a rollout. */
  createRollout(
    tenant: TestTenant,
    plan: { name?: string; firmwareId: number; group: string; priority?: number; startDate?: string; downgrade?: boolean; start?: boolean },
  ): Promise<RolloutView>;
  /** Logs in as a device of the tenant; returns the token. Each call uses a fresh timestamp. */
  login(tenant: TestTenant): Promise<string>;
  /** Creates an operator token (as `firmledger operator-token create` does); returns the token. */
  createOperatorToken(name?: string): Promise<string>;
  close(): Promise<void>;
}

let tenantCounter = 0;

/**
 * Starts the real application on real sockets, with a fresh SQLite database (migrations run)
 * in a temporary data directory. Components get separate ports unless `urls` says otherwise.
 * @param env extra environment variables (e.g. `LOGIN_RATE_LIMIT`).
 * @param urls base URLs per component; `{port}` placeholders are replaced by free ports.
 * @param options `logDestination` receives the JSON log lines at `LOG_LEVEL` (else only fatal ones
 *   are printed, to keep test output quiet).
 */
export async function startTestApp(
  env: Record<string, string> = {},
  urls?: Partial<Record<'AUTH_URL' | 'VC_URL' | 'BC_URL' | 'OPERATOR_URL', string>>,
  options: { logDestination?: DestinationStream } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'firmledger-e2e-'));
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
  const fill = (url: string) => url.replace(/\{port(\d)?\}/g, (_, i: string | undefined) => String(ports[Number(i ?? 0)]));
  const config = loadConfig({
    AUTH_URL: fill(urls?.AUTH_URL ?? 'http://127.0.0.1:{port0}'),
    VC_URL: fill(urls?.VC_URL ?? 'http://127.0.0.1:{port1}'),
    BC_URL: fill(urls?.BC_URL ?? 'http://127.0.0.1:{port2}'),
    OPERATOR_URL: fill(urls?.OPERATOR_URL ?? 'http://127.0.0.1:{port3}'),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    LOGIN_RATE_LIMIT: '1000',
    ...env,
  });
  const clock = new TestClock();
  const { logDestination } = options;
  const server = await startServer(config, logDestination ? { clock, logDestination } : { clock, logger: ['fatal'] });
  const get = <T>(type: new (...args: never[]) => T): T => server.app.get(type);
  const base = (url: URL) => url.href.replace(/\/$/, '');
  let lastTimestamp = 0;

  const app: TestApp = {
    server,
    config,
    clock,
    urls: { auth: base(config.urls.auth), vc: base(config.urls.vc), bc: base(config.urls.bc), operator: base(config.urls.operator) },
    async createTenant(name = `tenant-${++tenantCounter}-${Date.now()}`, deviceType = 'ESP32') {
      const tenant = await get(TenantService).createTenant(name);
      const key = await get(TenantService).createDeviceKey(tenant.id, deviceType);
      return { id: tenant.id, name, customerKey: tenant.customerKey, deviceKey: key.key, deviceKeyId: key.id, deviceType };
    },
    async createDeviceKey(tenant, deviceType) {
      const key = await get(TenantService).createDeviceKey(tenant.id, deviceType);
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
      // Distinct timestamps: a (device key, timestamp) pair logs in once (CONTRACT.md §4).
      lastTimestamp = Math.max(lastTimestamp + 1, Math.floor(clock.now() / 1000) - 250);
      const timestamp = lastTimestamp;
      const response = await post(`${app.urls.auth}/auth/login`, {
        device_key: tenant.deviceKey,
        timestamp,
        device_signature: deviceSignature(tenant.customerKey, String(timestamp), tenant.deviceKey),
      });
      if (response.status !== 200) throw new Error(`login failed: ${response.status} ${JSON.stringify(response.body)}`);
      return (response.body as { token: string }).token;
    },
    async createOperatorToken(name = 'e2e') {
      return (await get(OperatorTokenService).create(name)).token;
    },
    async close() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return app;
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
