import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { REDIS } from '#src/platform/redis/redis.module.js';
import type { RunningServer } from '#src/app/server.js';
import {
  request,
  signedLoginBody,
  startInstance,
  startTestApp,
  TEST_REDIS_URL,
  type Answer,
  type TestApp,
  type TestClock,
  type TestTenant,
} from '#test/support/harness.js';

// docs/decisions.md §4 with REDIS_URL: failed-login counters and the replay store live in Redis,
// shared by every instance using it; nothing of it goes to the database. Each app has its own
// Redis key prefix (harness), so parallel specs sharing the Redis server never meet.

const INVALID_CREDENTIALS = { message: 'Invalid credentials' };
const TOO_MANY = { message: 'Too many requests in this time frame' };

/** Where a login goes: an auth base URL and the clock of its instance. */
interface Target {
  auth: string;
  clock: TestClock;
}

const used = new Set<string>();

/** A wrongly signed login body: a failed guess. */
function wrongLogin(target: Target, tenant: TestTenant): Record<string, unknown> {
  return { ...signedLoginBody(tenant, Math.floor(target.clock.now() / 1000)), device_signature: 'f'.repeat(64) };
}

/** A signed login body with a timestamp near the target's clock that this key has not used yet. */
function freshLogin(target: Target, tenant: TestTenant): Record<string, unknown> {
  let timestamp = Math.floor(target.clock.now() / 1000);
  while (used.has(`${tenant.deviceKey}:${timestamp}`)) timestamp -= 1;
  used.add(`${tenant.deviceKey}:${timestamp}`);
  return signedLoginBody(tenant, timestamp);
}

const login = (target: Target, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  request('POST', `${target.auth}/auth/login`, { body, headers });

function assertMessage(answer: Answer, status: number, expected: { message: string }, what: string): void {
  assert.equal(answer.status, status, `${what}: status ${answer.status} ${answer.text}`);
  assert.deepEqual(answer.body, expected, what);
}

describe('login bookkeeping in Redis (REDIS_URL, docs/decisions.md §4)', () => {
  let app: TestApp;
  let other: { server: RunningServer; auth: string; clock: TestClock };
  let redis: Redis;
  let target: Target;

  before(async () => {
    redis = new Redis(TEST_REDIS_URL);
    app = await startTestApp({ REDIS_URL: TEST_REDIS_URL, LOGIN_RATE_LIMIT: '3', LOGIN_RATE_WINDOW_SECONDS: '60' });
    target = { auth: app.urls.auth, clock: app.clock };
    const started = await startInstance(app.database, { REDIS_URL: TEST_REDIS_URL, LOGIN_RATE_LIMIT: '3' });
    other = { server: started.server, auth: started.config.urls.auth.href.replace(/\/$/, ''), clock: started.clock };
  });
  after(async () => {
    await other.server.close();
    await app.close();
    await redis.quit();
  });

  /** Keys of this app in Redis (its own prefix), without the prefix. */
  async function keys(kind: string): Promise<string[]> {
    const found = await redis.keys(`${app.config.redisKeyPrefix}${kind}:*`);
    return found.map((key) => key.slice(app.config.redisKeyPrefix.length));
  }

  it('counts failed logins in Redis: 2, 1, 0 left, the 4th is 429 with Retry-After; login_rate stays empty', async () => {
    const tenant = await app.createTenant();
    const ok = await login(target, freshLogin(target, tenant));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers.get('x-ratelimit-remaining'), '3', 'a success costs nothing');
    const remaining: string[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < 4; i += 1) {
      last = await login(target, wrongLogin(target, tenant));
      remaining.push(last.headers.get('x-ratelimit-remaining') ?? '');
    }
    assert.deepEqual(remaining, ['2', '1', '0', '0']);
    assertMessage(last!, 429, TOO_MANY, '4th guess');
    const retryAfter = Number(last!.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const reset = Number(last!.headers.get('x-ratelimit-reset'));
    const now = app.clock.now() / 1000;
    assert.ok(reset >= Math.floor(now) && reset <= Math.ceil(now) + 60, `X-RateLimit-Reset ${reset} within 60 s of ${now}`);

    const counters = await keys('login-rate');
    assert.ok(counters.length >= 1, 'a counter key in Redis');
    const ttls = await Promise.all(counters.map((key) => redis.pttl(`${app.config.redisKeyPrefix}${key}`)));
    assert.ok(
      ttls.every((ttl) => ttl > 0 && ttl <= 60_000),
      `counters expire with their 60 s window: ${ttls.join(', ')}`,
    );
    assert.deepEqual(await app.database.query('SELECT * FROM login_rate'), [], 'nothing counted in the database');
  });

  it('shares the counter with another instance using the same Redis', async () => {
    const tenant = await app.createTenant();
    const remaining: string[] = [];
    let last: Answer | undefined;
    for (const instance of [target, other, target, other]) {
      last = await login(instance, wrongLogin(instance, tenant));
      remaining.push(last.headers.get('x-ratelimit-remaining') ?? '');
    }
    assert.deepEqual(remaining, ['2', '1', '0', '0']);
    assertMessage(last!, 429, TOO_MANY, '4th guess across two instances');
  });

  it('refuses a replayed (device key, timestamp) of a single-device key, also on the other instance; login_nonce stays empty', async () => {
    const tenant = await app.createDeviceKey(await app.createTenant(), 'ESP32', { singleDevice: true });
    const body = freshLogin(target, tenant);
    const accepted = await login(target, body);
    assert.equal(accepted.status, 200, accepted.text);
    assertMessage(await login(target, body), 401, INVALID_CREDENTIALS, 'replay on the same instance');
    assertMessage(await login(other, body), 401, INVALID_CREDENTIALS, 'replay on the other instance');

    const nonce = `${app.config.redisKeyPrefix}login-nonce:${tenant.deviceKey}:${String(body['timestamp'])}`;
    const ttl = await redis.pttl(nonce);
    // Kept until the timestamp can no longer pass the ±300 s skew check, plus the window again.
    assert.ok(ttl > 300_000 && ttl <= 900_000, `the claim expires once the timestamp is stale (PTTL ${ttl})`);
    assert.deepEqual(await app.database.query('SELECT * FROM login_nonce'), [], 'nothing recorded in the database');
  });

  it("accepts the same timestamp for another single-device key, and a shared key's byte-identical logins", async () => {
    const shared = await app.createTenant();
    const body = signedLoginBody(shared, Math.floor(app.clock.now() / 1000));
    for (const instance of [target, other, target]) assert.equal((await login(instance, body)).status, 200, 'shared key');
    const first = await app.createDeviceKey(shared, 'ESP32', { singleDevice: true });
    const second = await app.createDeviceKey(first, 'ESP32', { singleDevice: true });
    const timestamp = Math.floor(app.clock.now() / 1000) - 120;
    for (const tenant of [first, second]) {
      const answer = await login(target, signedLoginBody(tenant, timestamp));
      assert.equal(answer.status, 200, `${tenant.deviceKey}: ${answer.text}`);
    }
  });

  it('closes its Redis connection when the app closes', async () => {
    const separate = await startTestApp({ REDIS_URL: TEST_REDIS_URL });
    const connection = separate.server.app.get<symbol, Redis>(REDIS);
    assert.equal(connection.status, 'ready');
    await separate.close();
    assert.equal(connection.status, 'end');
  });
});
