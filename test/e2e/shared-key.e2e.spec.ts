import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { operatorClient } from '#test/support/operator.js';
import { request, signedLoginBody, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

// docs/decisions.md §4: many devices share one device key (one per product line), and devices that
// boot together send byte-identical logins in the same second. Only failed logins count toward the
// rate limit; a key marked single_device keeps strict once-only logins. LOGIN_RATE_LIMIT is the
// documented default (10 per 60 s) here, not the harness's generous one.

const INVALID_CREDENTIALS = { message: 'Invalid credentials' };
const TOO_MANY = { message: 'Too many requests in this time frame' };

const login = (app: TestApp, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  request('POST', `${app.urls.auth}/auth/login`, { body, headers });

const nowSeconds = (app: TestApp): number => Math.floor(app.clock.now() / 1000);

/** Statuses other than 200, with their bodies, for a readable failure. */
function refusals(answers: Answer[]): string[] {
  return answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.text}`);
}

describe('devices sharing one device key (docs/decisions.md §4)', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ LOGIN_RATE_LIMIT: '10', LOGIN_RATE_WINDOW_SECONDS: '60', TRUST_PROXY: 'true' });
  });
  after(() => app.close());

  it('500 devices on one key, logging in within the same second from 500 addresses, all get tokens', async () => {
    const tenant = await app.createTenant();
    const body = signedLoginBody(tenant, nowSeconds(app));
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) => login(app, body, { 'x-forwarded-for': `10.1.${i >> 8}.${i & 255}` })),
    );
    assert.deepEqual(refusals(answers), []);
    assert.equal(new Set(answers.map((answer) => (answer.body as { token: string }).token)).size, 500, 'each device its own token');
  });

  it('500 devices on one key, logging in within the same second from one address, all get tokens', async () => {
    const tenant = await app.createTenant();
    const body = signedLoginBody(tenant, nowSeconds(app));
    const answers = await Promise.all(Array.from({ length: 500 }, () => login(app, body, { 'x-forwarded-for': '198.51.100.20' })));
    assert.deepEqual(refusals(answers), []);
    assert.equal(answers[499].headers.get('x-ratelimit-remaining'), '10', 'no login counted');
  });

  it('200 devices behind one address, each logging in every 10 s for 5 minutes (server clock), are never refused', async () => {
    const tenant = await app.createTenant();
    const nat = { 'x-forwarded-for': '198.51.100.30' };
    let logins = 0;
    // Each second of the 5 minutes, the 20 devices whose turn it is log in with the current time.
    for (let second = 0; second < 300; second += 1) {
      const body = signedLoginBody(tenant, nowSeconds(app));
      const answers = await Promise.all(Array.from({ length: 20 }, () => login(app, body, nat)));
      assert.deepEqual(refusals(answers), [], `second ${second}`);
      logins += answers.length;
      app.clock.advance(1);
    }
    assert.equal(logins, 200 * 30, 'every device logged in 30 times');
  });

  it('stops a brute force of wrong signatures at the documented limit: 10 failures, then 429 with the headers', async () => {
    const tenant = await app.createTenant();
    const attacker = { 'x-forwarded-for': '203.0.113.66' };
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i += 1) {
      const guess = { ...signedLoginBody(tenant, nowSeconds(app)), device_signature: i.toString(16).padStart(64, '0') };
      answers.push(await login(app, guess, attacker));
    }
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [...Array<number>(10).fill(401), 429, 429],
    );
    assert.deepEqual(answers[9].body, INVALID_CREDENTIALS);
    assert.deepEqual(answers[10].body, TOO_MANY);
    assert.deepEqual(
      answers.map((answer) => answer.headers.get('x-ratelimit-remaining')),
      ['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0', '0'],
    );
    for (const answer of answers) {
      assert.equal(answer.headers.get('x-ratelimit-limit'), '10');
      assert.match(answer.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
    }
    const retryAfter = Number(answers[10].headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // Genuine devices of that key behind the attacker's address (one NAT) still log in; so does the fleet elsewhere.
    const behindNat = await login(app, signedLoginBody(tenant, nowSeconds(app)), attacker);
    assert.equal(behindNat.status, 200, `same address and key, right signature: ${behindNat.text}`);
    const fleet = await login(app, signedLoginBody(tenant, nowSeconds(app)), { 'x-forwarded-for': '198.51.100.40' });
    assert.equal(fleet.status, 200, fleet.text);
  });
});

describe('single-device keys and new device keys over the operator API (docs/decisions.md §4, §5)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let op: ReturnType<typeof operatorClient>;

  before(async () => {
    app = await startTestApp({ LOGIN_RATE_LIMIT: '10' });
    op = operatorClient(app, await app.createOperatorToken());
    tenant = await app.createTenant();
  });
  after(() => app.close());

  it("refuses a single-device key's byte-identical second login as a replay (401, not counted)", async () => {
    const created = await op.post(`/tenants/${tenant.id}/device-keys`, { device_type: 'ESP32', single_device: true });
    assert.equal(created.status, 201, created.text);
    const key = created.body as { key: string; single_device: boolean };
    assert.equal(key.single_device, true);
    const body = signedLoginBody({ customerKey: tenant.customerKey, deviceKey: key.key }, nowSeconds(app));
    assert.equal((await login(app, body)).status, 200);
    const replay = await login(app, body);
    assert.equal(replay.status, 401, replay.text);
    assert.deepEqual(replay.body, INVALID_CREDENTIALS);
    assert.equal(replay.headers.get('x-ratelimit-remaining'), '10');
    const next = signedLoginBody({ customerKey: tenant.customerKey, deviceKey: key.key }, nowSeconds(app) + 1);
    assert.equal((await login(app, next)).status, 200, 'the next second logs in');
  });

  it('creates device keys of 22 letters and digits (at most 31 characters, about 131 random bits)', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 100; i += 1) {
      const created = await op.post(`/tenants/${tenant.id}/device-keys`, { device_type: 'ESP8266' });
      assert.equal(created.status, 201, created.text);
      keys.push((created.body as { key: string }).key);
    }
    for (const key of keys) assert.match(key, /^[A-Za-z0-9]{22}$/);
    assert.equal(new Set(keys).size, keys.length, 'no key repeats');
    // 2200 characters drawn from 62: every one appears, none far more often than its share (~35).
    const counts = new Map<string, number>();
    for (const char of keys.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    assert.equal(counts.size, 62, 'all 62 letters and digits occur');
    assert.ok(Math.max(...counts.values()) < 80, `no character dominates: ${Math.max(...counts.values())}`);
    assert.ok(22 * Math.log2(62) >= 128, '22 characters of 62 carry at least 128 bits');
    const answer = await login(app, signedLoginBody({ customerKey: tenant.customerKey, deviceKey: keys[0] }, nowSeconds(app)));
    assert.equal(answer.status, 200, answer.text);
  });
});
