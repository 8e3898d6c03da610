import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import {
  request,
  signedLoginBody,
  startTestApp,
  TEST_DATABASE_URL,
  TEST_ENGINE,
  TEST_REDIS_URL,
  type Answer,
  type TestApp,
  type TestTenant,
} from '#test/support/harness.js';
import { TcpForwarder } from '#test/support/tcp-forwarder.js';

// docs/deployment.md "Outages": while PostgreSQL is unreachable every request that needs it is
// answered 503 with Retry-After at once, and nothing acknowledged is lost; while Redis is
// unreachable device logins fall back to the database. The outage is a forwarder between the
// server and the machine's PostgreSQL or Redis that the spec cuts: the shared servers stay up.

/** Longest a request may take to be answered during an outage, milliseconds. */
const PROMPT_MS = 1500;

/** Sends a request and measures how long its answer took. */
async function timed(answer: () => Promise<Answer>): Promise<{ answer: Answer; ms: number }> {
  const started = performance.now();
  const result = await answer();
  return { answer: result, ms: performance.now() - started };
}

/** Asks `probe` every 100 ms until it is true; fails after `seconds`. */
async function until(what: string, probe: () => Promise<boolean>, seconds = 15): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await probe())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${seconds} s`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

describe('outages of PostgreSQL and Redis (docs/deployment.md "Outages")', () => {
  describe('PostgreSQL unreachable', { skip: TEST_ENGINE !== 'postgres' && 'PostgreSQL only: SQLite is a file' }, () => {
    let app: TestApp;
    let forwarder: TcpForwarder;

    before(async () => {
      const through = await TcpForwarder.before(TEST_DATABASE_URL);
      forwarder = through.forwarder;
      const port = new URL(through.url).port;
      app = await startTestApp({}, undefined, {
        databaseUrl: (url) => Object.assign(new URL(url), { host: `127.0.0.1:${port}` }).href,
      });
    });
    after(async () => {
      forwarder.restore();
      await app.close();
      await forwarder.close();
    });

    it('answers 503 with Retry-After at once while cut, /readyz names the database, and loses nothing acknowledged', async () => {
      const tenant = await app.createTenant();
      const token = await app.login(tenant);
      const bearer = await app.createOperatorToken();
      const mac = 'AC:67:B2:70:0E:01';
      const registered = await request('POST', `${app.urls.vc}/api/device/register`, { token, body: { mac, firmware_version: '1.0' } });
      assert.equal(registered.status, 200, registered.text);
      const target = await request('POST', `${app.urls.operator}/tenants/${tenant.name}/devices`, {
        bearer,
        body: { controller_id: 'outage-1', device_type: 'ESP32' },
      });
      assert.equal(target.status, 201, target.text);
      const targetToken = `TargetToken ${(target.body as { target_token: string }).target_token}`;

      // Acknowledged just before the cut: a last-seen time, written behind within a second.
      app.clock.advance(3600);
      const seenAt = app.clock.now();
      const seen = await request('POST', `${app.urls.vc}/api/device/next/rollout`, { token, body: { mac, firmware_version: '1.0' } });
      assert.equal(seen.status, 200, seen.text);
      forwarder.cut();

      const requests: Record<string, () => Promise<Answer>> = {
        'asvin next rollout': () =>
          request('POST', `${app.urls.vc}/api/device/next/rollout`, { token, body: { mac, firmware_version: '1.0' } }),
        'DDI poll': () =>
          request('GET', `${app.urls.ddi}/${tenant.name}/controller/v1/outage-1`, { headers: { authorization: targetToken } }),
        'operator device list': () => request('GET', `${app.urls.operator}/tenants/${tenant.name}/devices`, { bearer }),
        'asvin login': () =>
          request('POST', `${app.urls.auth}/auth/login`, { body: signedLoginBody(tenant, Math.floor(app.clock.now() / 1000)) }),
      };
      for (let round = 1; round <= 2; round++) {
        for (const [what, send] of Object.entries(requests)) {
          const { answer, ms } = await timed(send);
          assert.equal(answer.status, 503, `${what} (round ${round}): ${answer.status} ${answer.text}`);
          assert.deepEqual(answer.body, { message: 'Database unavailable, retry later' }, what);
          const retryAfter = Number(answer.headers.get('retry-after'));
          assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 30, `${what}: Retry-After ${retryAfter}`);
          assert.ok(ms < PROMPT_MS, `${what} (round ${round}) answered after ${Math.round(ms)} ms`);
        }
      }
      const { answer: ready, ms } = await timed(() => request('GET', `${app.urls.vc}/readyz`));
      assert.equal(ready.status, 503, ready.text);
      assert.deepEqual(ready.body, { message: 'Database unreachable' });
      assert.ok(ms < PROMPT_MS, `/readyz answered after ${Math.round(ms)} ms`);
      const live = await request('GET', `${app.urls.vc}/healthz`);
      assert.deepEqual([live.status, live.body], [200, { status: 'ok' }], '/healthz is liveness only');
      // The last-seen time's writes fail meanwhile (it is flushed within a second).
      await new Promise((wake) => setTimeout(wake, 1500));

      forwarder.restore();
      await until('ready again', async () => (await request('GET', `${app.urls.vc}/readyz`)).status === 200);
      for (const [what, send] of Object.entries(requests)) {
        const answer = await send();
        assert.equal(answer.status, 200, `${what} after the outage: ${answer.status} ${answer.text}`);
      }
      const [row] = await app.database.query<{ last_seen_at: number | string }>('SELECT last_seen_at FROM device WHERE mac = $1', [mac]);
      assert.ok(
        Number(row.last_seen_at) >= seenAt,
        `the last-seen time acknowledged before the cut is written (${row.last_seen_at} < ${seenAt})`,
      );
      assert.deepEqual(app.serverErrors(), [], 'no 500 answers');
    });
  });

  describe('Redis unreachable (REDIS_URL)', () => {
    let app: TestApp;
    let forwarder: TcpForwarder;
    let redis: Redis;
    const log: Array<{ level: string; context?: string; msg: string }> = [];
    let used = 0;

    /** A signed login of `tenant` with a timestamp it has not used yet. */
    const fresh = (tenant: TestTenant): Record<string, unknown> =>
      signedLoginBody(tenant, Math.floor(app.clock.now() / 1000) - 200 + ++used);
    const login = (body: unknown) => timed(() => request('POST', `${app.urls.auth}/auth/login`, { body }));

    before(async () => {
      redis = new Redis(TEST_REDIS_URL);
      const through = await TcpForwarder.before(TEST_REDIS_URL);
      forwarder = through.forwarder;
      app = await startTestApp({ REDIS_URL: through.url, LOG_LEVEL: 'log', LOGIN_RATE_LIMIT: '5' }, undefined, {
        logDestination: { write: (line: string) => void log.push(JSON.parse(line) as (typeof log)[number]) },
      });
    });
    after(async () => {
      forwarder.restore();
      await app.close();
      await forwarder.close();
      await redis.quit();
    });

    /** This app's keys of `kind` in Redis. */
    const keys = (kind: string) => redis.keys(`${app.config.redisKeyPrefix}${kind}:*`);
    const redisLines = () => log.filter((line) => line.context === 'Redis' && /unreachable|back/.test(line.msg));

    it('logs in through the database at once while cut, says so once in the log and in /readyz, and uses Redis again after', async () => {
      const tenant = await app.createDeviceKey(await app.createTenant(), 'ESP32', { singleDevice: true });
      const before = await login(fresh(tenant));
      assert.equal(before.answer.status, 200, before.answer.text);

      forwarder.cut();
      let replayable: Record<string, unknown> | undefined;
      for (let i = 0; i < 5; i++) {
        replayable = fresh(tenant);
        const { answer, ms } = await login(replayable);
        assert.equal(answer.status, 200, `login ${i} while Redis is cut: ${answer.status} ${answer.text}`);
        assert.ok(ms < PROMPT_MS, `login ${i} answered after ${Math.round(ms)} ms`);
      }
      const replay = await login(replayable);
      assert.deepEqual([replay.answer.status, replay.answer.body], [401, { message: 'Invalid credentials' }], 'a replay while cut');
      const wrong = await login({ ...fresh(tenant), device_signature: 'f'.repeat(64) });
      assert.deepEqual([wrong.answer.status, wrong.answer.body], [401, { message: 'Invalid credentials' }], 'a bad signature while cut');
      assert.ok(wrong.ms < PROMPT_MS, `the bad signature answered after ${Math.round(wrong.ms)} ms`);
      assert.equal(wrong.answer.headers.get('x-ratelimit-remaining'), '4', 'the failure is counted (in the database)');
      assert.equal((await app.database.query('SELECT key FROM login_rate')).length > 0, true, 'counted in the database meanwhile');

      const ready = await request('GET', `${app.urls.auth}/readyz`);
      assert.equal(ready.status, 200, `Redis alone does not take the instance out of the load balancer: ${ready.text}`);
      assert.deepEqual(ready.body, { status: 'ready', message: 'Redis unreachable, logins use the database' });
      assert.deepEqual(
        redisLines().map((line) => [line.level, line.msg.split(':')[0]]),
        [['warn', 'Redis unreachable']],
        'one warning for the whole outage',
      );

      forwarder.restore();
      await until('Redis back', async () => (await request('GET', `${app.urls.auth}/readyz`)).text === '{"status":"ready"}');
      assert.deepEqual(
        redisLines().map((line) => line.level),
        ['warn', 'info'],
        `one info line once Redis is back: ${JSON.stringify(redisLines())}`,
      );
      const replayAfter = await login(replayable);
      assert.equal(replayAfter.answer.status, 401, 'a login claimed in the database during the outage is still a replay after it');
      const counted = await keys('login-rate');
      const again = await login({ ...fresh(tenant), device_signature: 'f'.repeat(64) });
      assert.equal(again.answer.status, 401);
      assert.ok((await keys('login-rate')).length > counted.length, 'failures are counted in Redis again');
      const after = await login(fresh(tenant));
      assert.equal(after.answer.status, 200, after.answer.text);
      assert.ok((await keys('login-nonce')).length >= 2, 'claims are in Redis again');
    });
  });
});
