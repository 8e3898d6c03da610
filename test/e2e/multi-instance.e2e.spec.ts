import 'reflect-metadata';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { CliModule } from '#src/cli/cli.module.js';
import { loadConfig } from '#src/platform/config/app-config.js';
import { FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import {
  createTestDatabase,
  freePort,
  request,
  signedLoginBody,
  TEST_REDIS_URL,
  type Answer,
  type TestDatabase,
  type TestTenant,
} from '#test/support/harness.js';
import { waitForPort } from '#test/support/free-port.js';
import { nginxBinary, startNginx, stopProcess } from '#test/support/nginx.js';
import { loopbackUrls, ROOT, spawnServer } from '#test/support/server-process.js';

// Several instances behind a load balancer (docs/decisions.md §4, §6, §7): two server processes as
// `npm start` runs them, on one PostgreSQL database, behind one nginx that alternates between
// them for every component. Everything an instance must share goes through the database or Redis.

const run = promisify(execFile);

const JWT_SECRET = 'multi-instance-secret-multi-instance-secret';
const INVALID_CREDENTIALS = { message: 'Invalid credentials' };
const TOO_MANY = { message: 'Too many requests in this time frame' };
const COMPONENTS = ['auth', 'vc', 'bc'] as const;
type Component = (typeof COMPONENTS)[number];

/** A server process and the ports of its components. */
interface ServerProcess {
  child: ChildProcess;
  ports: Record<Component, number>;
  output(): string;
}

/** Starts `node dist/src/main.js` on loopback ports with `env`; resolves once it listens. */
async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const ports = { auth: await freePort(), vc: await freePort(), bc: await freePort() };
  const { child, output } = spawnServer({
    ...loopbackUrls({
      ...ports,
      operator: await freePort(),
      ipfs: await freePort(),
      tools: await freePort(),
      ddi: await freePort(),
      mender: await freePort(),
    }),
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    ...env,
  });
  const started = { child, ports, output };
  for (const port of Object.values(ports)) await waitForPort(port, () => `server exited ${String(child.exitCode)}: ${output()}`);
  return started;
}

/** A running nginx and, per pool of instances, the port it serves each component on. */
interface Nginx {
  child: ChildProcess;
  front: Record<string, Record<Component, number>>;
  errors(): string;
}

/**
 * Starts nginx in the foreground with a generated configuration under `dir`: per pool and
 * component one loopback listener that proxies round-robin to that component of every
 * instance of the pool, appending the client to `X-Forwarded-For`. `X-Upstream` tells the test
 * which instance answered.
 */
async function startNginxFor(dir: string, pools: Record<string, ServerProcess[]>): Promise<Nginx> {
  const front: Record<string, Record<Component, number>> = {};
  const blocks: string[] = [];
  for (const [pool, instances] of Object.entries(pools)) {
    front[pool] = { auth: await freePort(), vc: await freePort(), bc: await freePort() };
    for (const component of COMPONENTS) {
      const upstream = `${pool}_${component}`;
      blocks.push(`
    upstream ${upstream} {
      ${instances.map((instance) => `server 127.0.0.1:${instance.ports[component]};`).join('\n      ')}
    }
    server {
      listen 127.0.0.1:${front[pool][component]};
      location / {
        proxy_pass http://${upstream};
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_next_upstream off;
        add_header X-Upstream $upstream_addr always;
      }
    }`);
    }
  }
  const nginx = await startNginx(
    dir,
    blocks,
    Object.values(front).flatMap((ports) => Object.values(ports)),
  );
  return { child: nginx.child, front, errors: nginx.output };
}

/** Timestamps used per device key: a single-device key's (device key, timestamp) logs in once. */
const used = new Set<string>();
function signedLogin(tenant: TestTenant): Record<string, unknown> {
  let timestamp = Math.floor(Date.now() / 1000);
  while (used.has(`${tenant.deviceKey}:${timestamp}`)) timestamp -= 1;
  used.add(`${tenant.deviceKey}:${timestamp}`);
  return signedLoginBody(tenant, timestamp);
}

/** A login of the tenant's key with a wrong signature: a failed guess. */
function wrongLogin(tenant: TestTenant): Record<string, unknown> {
  return { ...signedLoginBody(tenant, Math.floor(Date.now() / 1000)), device_signature: '0'.repeat(64) };
}

describe('several instances on one PostgreSQL database behind nginx', () => {
  let database: TestDatabase;
  let services: INestApplicationContext;
  /** Pool "redis": REDIS_URL and TRUST_PROXY=127.0.0.1. Pool "db": neither (database counters). */
  const servers: Record<'redis' | 'db', ServerProcess[]> = { redis: [], db: [] };
  let nginx: Nginx;
  const url = (pool: 'redis' | 'db', component: Component, path: string): string =>
    `http://127.0.0.1:${nginx.front[pool][component]}${path}`;

  /** A tenant with a device key, made by the operator services on the shared database. */
  async function newTenant(options: { singleDevice?: boolean } = {}): Promise<TestTenant> {
    const tenants = services.get(TenantService);
    const name = `multi-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const tenant = await tenants.createTenant(name);
    const key = await tenants.createDeviceKey(tenant.id, 'ESP32', undefined, options);
    return { id: tenant.id, name, customerKey: tenant.customerKey, deviceKey: key.key, deviceKeyId: key.id, deviceType: 'ESP32' };
  }

  const login = (pool: 'redis' | 'db', body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
    request('POST', url(pool, 'auth', '/auth/login'), { body, headers });

  async function token(pool: 'redis' | 'db', tenant: TestTenant, headers: Record<string, string> = {}): Promise<string> {
    const answer = await login(pool, signedLogin(tenant), headers);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { token: string }).token;
  }

  /** The instance that answered, as nginx names it. */
  const upstream = (answer: Answer): string => answer.headers.get('x-upstream') ?? '';

  before(async () => {
    nginxBinary(); // fail first and clearly when nginx is missing
    database = await createTestDatabase('postgres');
    const shared = { ...database.env, LOGIN_RATE_LIMIT: '3', LOGIN_RATE_WINDOW_SECONDS: '60' };
    // The first instance runs the migrations; the others start on the migrated database.
    servers.redis.push(await startServerProcess({ ...shared, REDIS_URL: TEST_REDIS_URL, TRUST_PROXY: '127.0.0.1' }));
    const rest = await Promise.all([
      startServerProcess({ ...shared, REDIS_URL: TEST_REDIS_URL, TRUST_PROXY: '127.0.0.1' }),
      startServerProcess(shared),
      startServerProcess(shared),
    ]);
    servers.redis.push(rest[0]);
    servers.db.push(rest[1], rest[2]);
    nginx = await startNginxFor(join(database.dataDir, 'nginx'), servers);
    services = await NestFactory.createApplicationContext(CliModule.forRoot(loadConfig({ ...database.env, JWT_SECRET })), {
      logger: false,
    });
  });

  after(async () => {
    await stopProcess(nginx?.child, 'SIGQUIT');
    await services?.close();
    await Promise.all([...servers.redis, ...servers.db].map((server) => stopProcess(server.child)));
    await database?.drop();
  });

  describe('login rate limit and replay in Redis (REDIS_URL), X-Forwarded-For trusted from nginx (TRUST_PROXY=127.0.0.1)', () => {
    it('(a) holds the limit of failed logins across instances: requests alternate, the 4th guess is 429', async () => {
      const tenant = await newTenant();
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i += 1) answers.push(await login('redis', wrongLogin(tenant)));
      assert.deepEqual(
        answers.map((a) => a.status),
        [401, 401, 401, 429],
      );
      assert.deepEqual(
        answers.map((a) => a.headers.get('x-ratelimit-remaining')),
        ['2', '1', '0', '0'],
      );
      assert.deepEqual(answers[3].body, TOO_MANY);
      const instances = answers.map(upstream);
      assert.equal(new Set(instances).size, 2, `both instances answered: ${instances.join(', ')}`);
      for (let i = 1; i < 4; i += 1) assert.notEqual(instances[i], instances[i - 1], `nginx alternates: ${instances.join(', ')}`);
    });

    it("(b) refuses a single-device key's login replayed to the other instance with 401 Invalid credentials", async () => {
      const tenant = await newTenant({ singleDevice: true });
      const body = signedLogin(tenant);
      const first = await login('redis', body);
      assert.equal(first.status, 200, first.text);
      const replay = await login('redis', body);
      assert.notEqual(upstream(replay), upstream(first), 'the replay reached the other instance');
      assert.equal(replay.status, 401, replay.text);
      assert.deepEqual(replay.body, INVALID_CREDENTIALS);
    });

    it('(c) keys the limit by the forwarded client IP: two clients behind nginx get their own counters', async () => {
      const tenant = await newTenant();
      const one = { 'x-forwarded-for': '203.0.113.10' };
      const two = { 'x-forwarded-for': '203.0.113.11' };
      const remaining: string[] = [];
      for (const headers of [one, one, one, two]) {
        const answer = await login('redis', wrongLogin(tenant), headers);
        assert.equal(answer.status, 401, answer.text);
        remaining.push(answer.headers.get('x-ratelimit-remaining') ?? '');
      }
      assert.deepEqual(remaining, ['2', '1', '0', '2']);
      const limited = await login('redis', wrongLogin(tenant), one);
      assert.equal(limited.status, 429, 'the first client’s guesses are still limited');
      const genuine = await login('redis', signedLogin(tenant), one);
      assert.equal(genuine.status, 200, `a genuine login from the first client is never refused: ${genuine.text}`);
    });
  });

  describe('login rate limit and replay in the database (no REDIS_URL), TRUST_PROXY unset', () => {
    it('holds the limit of failed logins across instances through the shared database', async () => {
      const tenant = await newTenant();
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i += 1) answers.push(await login('db', wrongLogin(tenant)));
      assert.deepEqual(
        answers.map((a) => a.headers.get('x-ratelimit-remaining')),
        ['2', '1', '0', '0'],
      );
      assert.equal(answers[3].status, 429);
      assert.equal(new Set(answers.map(upstream)).size, 2, 'both instances answered');
      const rows = await database.query<{ hits: number }>('SELECT hits FROM login_rate');
      assert.ok(
        rows.some((row) => Number(row.hits) === 4),
        `one database counter holds the 4 failures (the 4th answered 429): ${JSON.stringify(rows)}`,
      );
    });

    it("refuses a single-device key's login replayed to the other instance", async () => {
      const tenant = await newTenant({ singleDevice: true });
      const body = signedLogin(tenant);
      const first = await login('db', body);
      assert.equal(first.status, 200, first.text);
      const replay = await login('db', body);
      assert.notEqual(upstream(replay), upstream(first));
      assert.equal(replay.status, 401);
      assert.deepEqual(replay.body, INVALID_CREDENTIALS);
    });

    it('(c) ignores X-Forwarded-For: every client behind nginx shares nginx’s counter', async () => {
      const tenant = await newTenant();
      const statuses: number[] = [];
      for (const ip of ['203.0.113.10', '203.0.113.10', '203.0.113.10', '203.0.113.11']) {
        statuses.push((await login('db', wrongLogin(tenant), { 'x-forwarded-for': ip })).status);
      }
      assert.deepEqual(statuses, [401, 401, 401, 429]);
    });
  });

  describe('500 devices sharing one device key log in within one second (docs/decisions.md §4)', () => {
    for (const [pool, addresses] of [
      ['redis', 'from 500 forwarded client addresses'],
      ['db', 'from one address (nginx)'],
    ] as const) {
      it(`${pool}: 500 byte-identical logins ${addresses}, spread over both instances, all get tokens`, async () => {
        const tenant = await newTenant();
        const body = signedLoginBody(tenant, Math.floor(Date.now() / 1000));
        const started = Date.now();
        const answers = await Promise.all(
          Array.from({ length: 500 }, (_, i) =>
            login(pool, body, pool === 'redis' ? { 'x-forwarded-for': `10.${(i >> 8) & 255}.${i & 255}.7` } : {}),
          ),
        );
        const refused = answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text}`);
        assert.deepEqual(refused.slice(0, 5), [], `${refused.length} of 500 refused`);
        assert.equal(new Set(answers.map((a) => (a.body as { token: string }).token)).size, 500, 'each its own token');
        assert.equal(new Set(answers.map(upstream)).size, 2, 'both instances answered');
        assert.ok(Date.now() - started < 10_000, `answered in ${Date.now() - started} ms`);
      });
    }
  });

  describe('(d) concurrent duplicates spread over both instances', () => {
    let tenant: TestTenant;
    let accessToken: string;
    const MAC = '02:AA:00:00:00:01';

    before(async () => {
      tenant = await newTenant();
      accessToken = await token('redis', tenant, { 'x-forwarded-for': '198.51.100.1' });
    });

    it('registers a mac once: one "Device inserted!", every other answer "Device exists!", no 500', async () => {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          request('POST', url(i % 2 ? 'redis' : 'db', 'vc', '/api/device/register'), {
            token: accessToken,
            body: { mac: MAC, firmware_version: '1.0.0', name: `racer-${i}` },
          }),
        ),
      );
      assert.deepEqual(
        answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text}`),
        [],
      );
      const messages = answers.map((a) => (a.body as { message: string }).message);
      assert.equal(messages.filter((m) => m === 'Device inserted!').length, 1, messages.join(', '));
      assert.equal(messages.filter((m) => m === 'Device exists!').length, 23, messages.join(', '));
      assert.equal(new Set(answers.map(upstream)).size, 4, 'all four instances took part');
      const rows = await database.query('SELECT id FROM device WHERE tenant_id = $1 AND mac = $2', [tenant.id, MAC]);
      assert.equal(rows.length, 1, 'exactly one device row');
    });

    it('registers 40 different macs in parallel: all inserted, each once', async () => {
      const macs = Array.from({ length: 40 }, (_, i) => `02:BB:00:00:00:${i.toString(16).padStart(2, '0').toUpperCase()}`);
      const answers = await Promise.all(
        macs.map((mac, i) =>
          request('POST', url(i % 2 ? 'redis' : 'db', 'vc', '/api/device/register'), {
            token: accessToken,
            body: { mac, firmware_version: '1.0.0' },
          }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => `${a.status} ${(a.body as { message: string }).message}`),
        macs.map(() => '200 Device inserted!'),
      );
      const [{ count }] = await database.query<{ count: string }>("SELECT COUNT(*) AS count FROM device WHERE mac LIKE '02:BB:%'");
      assert.equal(Number(count), 40);
    });

    it('records a success once: one "Successfully inserted!", every other answer "Existing Record", no 500', async () => {
      const firmware = await services
        .get(FirmwareService)
        .publish({ tenantId: tenant.id, version: '1.1.0', deviceType: 'ESP32' }, Readable.from([Buffer.from('firmware 1.1.0')]));
      await services.get(GroupService).create(tenant.id, 'racers');
      await services.get(GroupService).addMembers(tenant.id, 'racers', [MAC, '02:AA:00:00:00:02']);
      const plans = services.get(RolloutPlanService);
      const planned = await plans.create({
        tenantId: tenant.id,
        name: 'race',
        firmwareId: firmware.id,
        group: 'racers',
        priority: 1,
        startDate: '2020-01-01 00:00:00',
      });
      const rollout = await plans.apply(tenant.id, planned.id, 'start');
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          request('POST', url(i % 2 ? 'redis' : 'db', 'vc', '/api/device/success/rollout'), {
            token: accessToken,
            body: { mac: MAC, firmware_version: '1.1.0', rollout_id: String(rollout.id) },
          }),
        ),
      );
      assert.deepEqual(
        answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text}`),
        [],
      );
      const messages = answers.map((a) => (a.body as { message: string }).message);
      assert.equal(messages.filter((m) => m === 'Successfully inserted!').length, 1, messages.join(', '));
      assert.equal(messages.filter((m) => m === 'Existing Record').length, 23, messages.join(', '));
      const rows = await database.query('SELECT id FROM rollout_success WHERE rollout_id = $1', [rollout.id]);
      assert.equal(rows.length, 1, 'exactly one success row');
      const device = await request('GET', url('redis', 'bc', `/device/${MAC}`), { token: accessToken });
      assert.deepEqual(device.body, { mac: MAC, fwId: String(firmware.id), dType: 'ESP32' }, 'the ledger knows the new version');
    });
  });

  it('(e) the ledger verifies after the parallel writes of all instances (firmledger ledger verify)', async () => {
    // nginx alternates between the instances: both sign the same checkpoint with the shared key.
    const checkpoints = [await request('GET', url('redis', 'bc', '/checkpoint')), await request('GET', url('redis', 'bc', '/checkpoint'))];
    assert.equal(checkpoints[0].status, 200, checkpoints[0].text);
    assert.equal(checkpoints[1].text, checkpoints[0].text, 'one checkpoint, whichever instance answers');
    const { stdout } = await run(process.execPath, ['bin/firmledger.js', 'ledger', 'verify', '--json'], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'], ...database.env, JWT_SECRET },
      timeout: 60_000,
    });
    const result = JSON.parse(stdout) as { ok: boolean; entries: number; checkpoints: number };
    assert.equal(result.ok, true, stdout);
    assert.ok(result.checkpoints >= 1, 'the checkpoint signed by the instances verifies');
    const [{ count, last }] = await database.query<{ count: string; last: number }>(
      'SELECT COUNT(*) AS count, MAX(seq) AS last FROM ledger_entry',
    );
    assert.equal(result.entries, Number(count));
    assert.equal(Number(last), Number(count), 'seq runs 1..n without gaps');
    assert.ok(result.entries >= 40 + 1 + 6, `every registration and plan is on the ledger (${result.entries} entries)`);
  });
});
