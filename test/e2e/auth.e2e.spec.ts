import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { COMPONENTS, URL_VARIABLES } from '#src/platform/config/components.js';
import { loadConfig } from '#src/platform/config/app-config.js';
import { startServer, type RunningServer } from '#src/app/server.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { freePort, request, startTestApp, TestClock, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

// docs/decisions.md §1 (signature), §3 (401 on device endpoints), §4 (login, token, rate limit, secret).

const INVALID_CREDENTIALS = { message: 'Invalid credentials' };
const INVALID_TOKEN = { message: 'JWT is not valid' };
const TOO_MANY = { message: 'Too many requests in this time frame' };
const JWT_SECRET = 'e2e-secret-e2e-secret-e2e-secret-0123456789';
const JWT_TTL_SECONDS = 1800;
const MAC = '02:00:00:00:0a:01';

/** A base URL and the clock of a running instance (harness apps and hand-started ones). */
interface Instance {
  auth: string;
  vc: string;
  bc: string;
  clock: TestClock;
}

const asInstance = (app: TestApp): Instance => ({ auth: app.urls.auth, vc: app.urls.vc, bc: app.urls.bc, clock: app.clock });
const nowSeconds = (instance: Instance): number => Math.floor(instance.clock.now() / 1000);

/** Timestamps already used per device key: a (device key, timestamp) pair logs in once. */
const usedTimestamps = new Map<string, Set<number>>();

/** A timestamp near the instance's clock that this device key has not used yet. */
function freshTimestamp(instance: Instance, deviceKey: string): number {
  const used = usedTimestamps.get(deviceKey) ?? new Set<number>();
  let timestamp = nowSeconds(instance);
  while (used.has(timestamp)) timestamp -= 1;
  used.add(timestamp);
  usedTimestamps.set(deviceKey, used);
  return timestamp;
}

/** The three fields a field device sends, signed as the SDKs sign (docs/decisions.md §1). */
function loginBody(tenant: Pick<TestTenant, 'customerKey' | 'deviceKey'>, timestamp: number | string): Record<string, unknown> {
  return {
    device_key: tenant.deviceKey,
    timestamp,
    device_signature: deviceSignature(tenant.customerKey, String(timestamp), tenant.deviceKey),
  };
}

function login(instance: Instance, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request('POST', `${instance.auth}/auth/login`, { body, headers });
}

/** Logs in with a fresh timestamp and returns the token; fails the test on anything but 200. */
async function tokenFor(instance: Instance, tenant: TestTenant): Promise<string> {
  const answer = await login(instance, loginBody(tenant, freshTimestamp(instance, tenant.deviceKey)));
  assert.equal(answer.status, 200, `login failed: ${answer.text}`);
  const { token } = answer.body as { token: unknown };
  assert.equal(typeof token, 'string');
  return token as string;
}

function decodePart(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** An HS256 JWT signed with `secret` (or unsigned with `alg: none`). */
function signJwt(payload: Record<string, unknown>, secret: string, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const head = Buffer.from(JSON.stringify(header)).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = header['alg'] === 'none' ? '' : createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${signature}`;
}

function assertMessage(answer: Answer, status: number, expected: { message: string }, what: string): void {
  assert.equal(answer.status, status, `${what}: status ${answer.status} ${answer.text}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `${what}: content-type`);
  assert.deepEqual(answer.body, expected, what);
}

/** Every version-controller and blockchain endpoint, with a well-formed body where one is needed. */
function deviceEndpoints(instance: Instance): { method: string; url: string; body?: unknown }[] {
  return [
    { method: 'GET', url: `${instance.vc}/api/device/` },
    { method: 'GET', url: `${instance.vc}/api/device/${MAC}` },
    { method: 'POST', url: `${instance.vc}/api/device/register`, body: { mac: MAC, firmware_version: '1.0.0', name: 'probe' } },
    { method: 'DELETE', url: `${instance.vc}/api/device/`, body: { mac: MAC } },
    { method: 'GET', url: `${instance.vc}/api/report/json` },
    { method: 'GET', url: `${instance.vc}/api/report/xml` },
    { method: 'POST', url: `${instance.vc}/api/device/next/rollout`, body: { mac: MAC, firmware_version: '1.0.0' } },
    { method: 'POST', url: `${instance.vc}/api/device/success/rollout`, body: { mac: MAC, firmware_version: '1.0.0', rollout_id: '1' } },
    { method: 'GET', url: `${instance.bc}/device/${MAC}` },
    { method: 'GET', url: `${instance.bc}/firmware/1` },
  ];
}

/** Asserts that every device endpoint answers 401 `JWT is not valid` to these request headers. */
async function assertTokenRefusedEverywhere(instance: Instance, headers: Record<string, string>, what: string): Promise<void> {
  for (const endpoint of deviceEndpoints(instance)) {
    const answer = await request(endpoint.method, endpoint.url, { body: endpoint.body, headers });
    assertMessage(answer, 401, INVALID_TOKEN, `${what}: ${endpoint.method} ${endpoint.url}`);
  }
}

/** A GET with the header names spelled exactly as given (fetch would lowercase them). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('login (docs/decisions.md §1, §4)', () => {
  let app: TestApp;
  let instance: Instance;

  before(async () => {
    app = await startTestApp({ JWT_SECRET, JWT_TTL_SECONDS: String(JWT_TTL_SECONDS), AUTH_MAX_SKEW_SECONDS: '300' });
    instance = asInstance(app);
  });
  after(() => app.close());

  describe('signature', () => {
    it('accepts a lowercase hex signature with only device_key, timestamp and device_signature in the body', async () => {
      const tenant = await app.createTenant();
      const body = loginBody(tenant, freshTimestamp(instance, tenant.deviceKey));
      assert.deepEqual(Object.keys(body).sort(), ['device_key', 'device_signature', 'timestamp']);
      assert.match(body['device_signature'] as string, /^[0-9a-f]{64}$/);
      const answer = await login(instance, body);
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.body as object), ['token']);
      assert.match((answer.body as { token: string }).token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('accepts the same signature in uppercase hex', async () => {
      const tenant = await app.createTenant();
      const body = loginBody(tenant, freshTimestamp(instance, tenant.deviceKey));
      body['device_signature'] = (body['device_signature'] as string).toUpperCase();
      const answer = await login(instance, body);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(typeof (answer.body as { token: unknown }).token, 'string');
    });

    it('accepts the timestamp as a string of digits, the signed text being those digits', async () => {
      const tenant = await app.createTenant();
      const digits = String(freshTimestamp(instance, tenant.deviceKey));
      const answer = await login(instance, loginBody(tenant, digits));
      assert.equal(answer.status, 200, answer.text);
    });

    it('signs a digit string with a leading zero over exactly the digits sent', async () => {
      const tenant = await app.createTenant();
      const digits = `0${freshTimestamp(instance, tenant.deviceKey)}`;
      const answer = await login(instance, loginBody(tenant, digits));
      assert.equal(answer.status, 200, answer.text);
    });

    it('refuses a wrong signature (signed with another customer key) with 401 Invalid credentials', async () => {
      const tenant = await app.createTenant();
      const other = await app.createTenant();
      const timestamp = freshTimestamp(instance, tenant.deviceKey);
      const answer = await login(instance, {
        ...loginBody(tenant, timestamp),
        device_signature: deviceSignature(other.customerKey, String(timestamp), tenant.deviceKey),
      });
      assertMessage(answer, 401, INVALID_CREDENTIALS, 'wrong signature');
    });

    it('refuses a signature that is not hex, or signed over other text, with 401 Invalid credentials', async () => {
      const tenant = await app.createTenant();
      const timestamp = freshTimestamp(instance, tenant.deviceKey);
      const notHex = await login(instance, { ...loginBody(tenant, timestamp), device_signature: 'z'.repeat(64) });
      assertMessage(notHex, 401, INVALID_CREDENTIALS, 'non-hex signature');
      const keyFirst = await login(instance, {
        ...loginBody(tenant, timestamp),
        device_signature: createHmac('sha256', tenant.customerKey).update(`${tenant.deviceKey}${timestamp}`).digest('hex'),
      });
      assertMessage(keyFirst, 401, INVALID_CREDENTIALS, 'device key + timestamp order');
      const truncated = await login(instance, {
        ...loginBody(tenant, timestamp),
        device_signature: (loginBody(tenant, timestamp)['device_signature'] as string).slice(0, 62),
      });
      assertMessage(truncated, 401, INVALID_CREDENTIALS, 'truncated signature');
    });

    it('refuses an unknown device key with the same 401 Invalid credentials', async () => {
      const tenant = await app.createTenant();
      const unknown = { customerKey: tenant.customerKey, deviceKey: 'f'.repeat(32) };
      const answer = await login(instance, loginBody(unknown, nowSeconds(instance)));
      assertMessage(answer, 401, INVALID_CREDENTIALS, 'unknown device key');
    });

    it('refuses a revoked device key with a correct signature with the same 401 Invalid credentials', async () => {
      const tenant = await app.createTenant();
      await tokenFor(instance, tenant);
      await app.server.app.get(TenantService).revokeDeviceKey(tenant.id, String(tenant.deviceKeyId));
      const answer = await login(instance, loginBody(tenant, freshTimestamp(instance, tenant.deviceKey)));
      assertMessage(answer, 401, INVALID_CREDENTIALS, 'revoked key');
    });
  });

  describe('body validation', () => {
    const cases: { what: string; field: string; change: (body: Record<string, unknown>) => void }[] = [
      { what: 'float timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = (b['timestamp'] as number) + 0.5) },
      { what: 'negative timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = -(b['timestamp'] as number)) },
      { what: 'boolean timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = true) },
      { what: 'null timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = null) },
      { what: 'object timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = { value: b['timestamp'] }) },
      { what: 'array timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = [b['timestamp']]) },
      { what: 'float text timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = `${b['timestamp'] as number}.5`) },
      { what: 'negative text timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = `-${b['timestamp'] as number}`) },
      { what: 'non-digit text timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = 'yesterday') },
      { what: 'empty text timestamp', field: 'timestamp', change: (b) => (b['timestamp'] = '') },
      { what: 'missing timestamp', field: 'timestamp', change: (b) => delete b['timestamp'] },
      { what: 'missing device_key', field: 'device_key', change: (b) => delete b['device_key'] },
      { what: 'numeric device_key', field: 'device_key', change: (b) => (b['device_key'] = 12345) },
      { what: 'boolean device_key', field: 'device_key', change: (b) => (b['device_key'] = false) },
      { what: 'missing device_signature', field: 'device_signature', change: (b) => delete b['device_signature'] },
      { what: 'numeric device_signature', field: 'device_signature', change: (b) => (b['device_signature'] = 1234) },
      { what: 'array device_signature', field: 'device_signature', change: (b) => (b['device_signature'] = [b['device_signature']]) },
    ];
    for (const { what, field, change } of cases) {
      it(`answers 400 naming ${field} for a ${what}`, async () => {
        const tenant = await app.createTenant();
        const body = loginBody(tenant, freshTimestamp(instance, tenant.deviceKey));
        change(body);
        const answer = await login(instance, body);
        assert.equal(answer.status, 400, `${what}: ${answer.status} ${answer.text}`);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(Object.keys(answer.body as object), ['message']);
        const { message } = answer.body as { message: unknown };
        assert.equal(typeof message, 'string');
        assert.ok((message as string).includes(field), `message "${String(message)}" does not name ${field}`);
      });
    }
  });

  describe('skew window (AUTH_MAX_SKEW_SECONDS=300)', () => {
    it('accepts timestamps exactly 300 s behind and ahead of server time', async () => {
      app.clock.ms = Math.floor(app.clock.ms / 1000) * 1000;
      const tenant = await app.createTenant();
      const behind = await login(instance, loginBody(tenant, nowSeconds(instance) - 300));
      assert.equal(behind.status, 200, `-300 s: ${behind.text}`);
      const ahead = await login(instance, loginBody(tenant, nowSeconds(instance) + 300));
      assert.equal(ahead.status, 200, `+300 s: ${ahead.text}`);
    });

    it('refuses timestamps 301 s behind or ahead with 401 Invalid credentials', async () => {
      app.clock.ms = Math.floor(app.clock.ms / 1000) * 1000;
      const tenant = await app.createTenant();
      assertMessage(await login(instance, loginBody(tenant, nowSeconds(instance) - 301)), 401, INVALID_CREDENTIALS, '-301 s');
      assertMessage(await login(instance, loginBody(tenant, nowSeconds(instance) + 301)), 401, INVALID_CREDENTIALS, '+301 s');
      assertMessage(
        await login(instance, loginBody(tenant, String(nowSeconds(instance) - 3600))),
        401,
        INVALID_CREDENTIALS,
        'an hour old, as text',
      );
      assertMessage(await login(instance, loginBody(tenant, 0)), 401, INVALID_CREDENTIALS, 'epoch zero');
    });

    it('judges the timestamp by the server clock: a login signed now is refused once the clock has moved 301 s on', async () => {
      const tenant = await app.createTenant();
      const signedAt = nowSeconds(instance);
      const start = app.clock.ms;
      try {
        app.clock.ms = signedAt * 1000;
        app.clock.advance(301);
        assertMessage(await login(instance, loginBody(tenant, signedAt)), 401, INVALID_CREDENTIALS, 'clock +301 s');
        app.clock.ms = signedAt * 1000;
        app.clock.advance(-301);
        assertMessage(await login(instance, loginBody(tenant, signedAt)), 401, INVALID_CREDENTIALS, 'clock -301 s');
        app.clock.ms = signedAt * 1000;
        app.clock.advance(300);
        const atLimit = await login(instance, loginBody(tenant, signedAt));
        assert.equal(atLimit.status, 200, `clock +300 s: ${atLimit.text}`);
      } finally {
        app.clock.ms = start;
      }
    });
  });

  describe('replay (docs/decisions.md §4)', () => {
    it('accepts a byte-identical second login with a shared key (devices sharing a key send them)', async () => {
      const tenant = await app.createTenant();
      const body = loginBody(tenant, nowSeconds(instance));
      const first = await login(instance, body);
      const second = await login(instance, body);
      assert.equal(first.status, 200, first.text);
      assert.equal(second.status, 200, second.text);
      assert.notEqual((first.body as { token: string }).token, (second.body as { token: string }).token, 'each login its own token (jti)');
    });

    it("accepts a single-device key's (device key, timestamp) once; the second login with it is 401 Invalid credentials", async () => {
      const tenant = await app.createDeviceKey(await app.createTenant(), 'ESP32', { singleDevice: true });
      const body = loginBody(tenant, freshTimestamp(instance, tenant.deviceKey));
      assert.equal((await login(instance, body)).status, 200);
      const replay = await login(instance, body);
      assertMessage(replay, 401, INVALID_CREDENTIALS, 'replay');
      assert.equal(replay.headers.get('x-ratelimit-remaining'), String(app.config.loginRateLimit), 'a replay is not a failed guess');
    });

    it('treats the same timestamp re-sent as digit text or with an uppercase signature as the same replay', async () => {
      const tenant = await app.createDeviceKey(await app.createTenant(), 'ESP32', { singleDevice: true });
      const timestamp = freshTimestamp(instance, tenant.deviceKey);
      assert.equal((await login(instance, loginBody(tenant, timestamp))).status, 200);
      assertMessage(await login(instance, loginBody(tenant, String(timestamp))), 401, INVALID_CREDENTIALS, 'replay as text');
      const upper = loginBody(tenant, timestamp);
      upper['device_signature'] = (upper['device_signature'] as string).toUpperCase();
      assertMessage(await login(instance, upper), 401, INVALID_CREDENTIALS, 'replay uppercase');
    });

    it('keys replays by device key: another single-device key may use the same timestamp', async () => {
      const tenant = await app.createDeviceKey(await app.createTenant(), 'ESP32', { singleDevice: true });
      const second = await app.createDeviceKey(tenant, 'ESP8266', { singleDevice: true });
      const timestamp = nowSeconds(instance) - 7;
      assert.equal((await login(instance, loginBody(tenant, timestamp))).status, 200);
      const other = await login(instance, loginBody(second, timestamp));
      assert.equal(other.status, 200, other.text);
    });
  });

  describe('token', () => {
    it('is an HS256 JWT signed with JWT_SECRET carrying sub, tid, iat, exp = iat + JWT_TTL_SECONDS and jti', async () => {
      const tenant = await app.createTenant();
      const token = await tokenFor(instance, tenant);
      const [head, body, signature] = token.split('.') as [string, string, string];
      const header = decodePart(head);
      assert.equal(header['alg'], 'HS256');
      const expected = createHmac('sha256', JWT_SECRET).update(`${head}.${body}`).digest('base64url');
      assert.equal(signature, expected, 'signature is HMAC-SHA256 over header.payload with JWT_SECRET');
      const claims = decodePart(body);
      assert.equal(claims['sub'], String(tenant.deviceKeyId));
      assert.equal(claims['tid'], tenant.id);
      assert.equal(claims['iat'], nowSeconds(instance));
      assert.equal(claims['exp'], nowSeconds(instance) + JWT_TTL_SECONDS);
      assert.equal(typeof claims['jti'], 'string');
      assert.ok((claims['jti'] as string).length > 0);
    });

    it('gives every token its own jti', async () => {
      const tenant = await app.createTenant();
      const first = decodePart((await tokenFor(instance, tenant)).split('.')[1]);
      const second = decodePart((await tokenFor(instance, tenant)).split('.')[1]);
      assert.notEqual(first['jti'], second['jti']);
    });

    it('is accepted on every device endpoint in X-Access-Token, x-access-token and Authorization: Bearer', async () => {
      const tenant = await app.createTenant();
      const token = await tokenFor(instance, tenant);
      const variants: Record<string, string>[] = [
        { 'X-Access-Token': token },
        { 'x-access-token': token },
        { Authorization: `Bearer ${token}` },
      ];
      for (const headers of variants) {
        for (const endpoint of deviceEndpoints(instance)) {
          const answer = await request(endpoint.method, endpoint.url, { body: endpoint.body, headers });
          assert.notEqual(answer.status, 401, `${Object.keys(headers)[0]} on ${endpoint.method} ${endpoint.url}: ${answer.text}`);
        }
      }
      const list = await request('GET', `${instance.vc}/api/device/`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(list.body));
    });

    it('reads the header name in any case on the wire', async () => {
      const tenant = await app.createTenant();
      const token = await tokenFor(instance, tenant);
      for (const name of ['X-Access-Token', 'x-access-token', 'X-ACCESS-TOKEN']) {
        const vc = await rawGet(`${instance.vc}/api/device/`, { [name]: token });
        assert.equal(vc.status, 200, `${name} on VC: ${vc.body}`);
        const bc = await rawGet(`${instance.bc}/device/${MAC}`, { [name]: token });
        assert.notEqual(bc.status, 401, `${name} on BC: ${bc.body}`);
      }
      const bearer = await rawGet(`${instance.vc}/api/device/`, { authorization: `bearer ${token}` });
      assert.equal(bearer.status, 200, `lowercase authorization/bearer: ${bearer.body}`);
    });

    it('is accepted when signed with JWT_SECRET by anyone holding it (HS256 with JWT_SECRET)', async () => {
      const tenant = await app.createTenant();
      const iat = Math.floor(Date.now() / 1000);
      const token = signJwt({ sub: String(tenant.deviceKeyId), tid: tenant.id, iat, exp: iat + 600, jti: 'hand-made' }, JWT_SECRET);
      const answer = await request('GET', `${instance.vc}/api/device/`, { token });
      assert.equal(answer.status, 200, answer.text);
    });

    it('stops working at once when its device key is revoked: 401 JWT is not valid everywhere', async () => {
      const tenant = await app.createTenant();
      const token = await tokenFor(instance, tenant);
      const before = await request('GET', `${instance.vc}/api/device/`, { token });
      assert.equal(before.status, 200);
      await app.server.app.get(TenantService).revokeDeviceKey(tenant.id, String(tenant.deviceKeyId));
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': token }, 'revoked key');
      await assertTokenRefusedEverywhere(instance, { Authorization: `Bearer ${token}` }, 'revoked key, bearer');
    });

    it("revoking one key leaves the tokens of the tenant's other keys working", async () => {
      const tenant = await app.createTenant();
      const sibling = await app.createDeviceKey(tenant, 'ESP32');
      const siblingToken = await tokenFor(instance, sibling);
      await app.server.app.get(TenantService).revokeDeviceKey(tenant.id, String(tenant.deviceKeyId));
      const answer = await request('GET', `${instance.vc}/api/device/`, { token: siblingToken });
      assert.equal(answer.status, 200, answer.text);
    });
  });

  describe('invalid tokens: 401 JWT is not valid on version-controller and blockchain endpoints', () => {
    let tenant: TestTenant;
    let token: string;
    before(async () => {
      tenant = await app.createTenant();
      token = await tokenFor(instance, tenant);
    });

    it('refuses a request without a token', async () => {
      await assertTokenRefusedEverywhere(instance, {}, 'no token');
    });

    it('refuses empty and malformed tokens', async () => {
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': '' }, 'empty header');
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': 'not-a-jwt' }, 'garbage');
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': 'a.b.c' }, 'three garbage parts');
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': token.split('.').slice(0, 2).join('.') }, 'signature part missing');
      await assertTokenRefusedEverywhere(instance, { Authorization: 'Bearer' }, 'bearer without token');
      await assertTokenRefusedEverywhere(instance, { Authorization: `Basic ${token}` }, 'basic scheme');
    });

    it('refuses a token signed with another secret, or with a payload changed after signing', async () => {
      const claims = decodePart(token.split('.')[1]);
      await assertTokenRefusedEverywhere(
        instance,
        { 'x-access-token': signJwt(claims, 'another-secret-another-secret-0123456789') },
        'other secret',
      );
      const [head, , signature] = token.split('.') as [string, string, string];
      const other = await app.createTenant();
      const swapped = Buffer.from(JSON.stringify({ ...claims, sub: String(other.deviceKeyId), tid: other.id })).toString('base64url');
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': `${head}.${swapped}.${signature}` }, 'payload swapped');
    });

    it('refuses an unsigned token (alg none) and an HS512 token', async () => {
      const claims = decodePart(token.split('.')[1]);
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': signJwt(claims, '', { alg: 'none', typ: 'JWT' }) }, 'alg none');
      const head = Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' })).toString('base64url');
      const body = token.split('.')[1];
      const hs512 = `${head}.${body}.${createHmac('sha512', JWT_SECRET).update(`${head}.${body}`).digest('base64url')}`;
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': hs512 }, 'HS512');
    });

    it('refuses an expired token issued while the server clock stood two hours back', async () => {
      const other = await app.createTenant();
      const start = app.clock.ms;
      let expired: string;
      try {
        app.clock.advance(-7200);
        expired = await tokenFor(instance, other);
      } finally {
        app.clock.ms = start;
      }
      const claims = decodePart(expired.split('.')[1]);
      assert.ok((claims['exp'] as number) < Date.now() / 1000, 'precondition: exp is in the past');
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': expired }, 'expired (issued 2 h ago)');
      await assertTokenRefusedEverywhere(instance, { Authorization: `Bearer ${expired}` }, 'expired, bearer');
    });

    it('refuses a correctly signed token whose exp has passed', async () => {
      const iat = Math.floor(Date.now() / 1000) - 120;
      const expired = signJwt({ sub: String(tenant.deviceKeyId), tid: tenant.id, iat, exp: iat + 60, jti: 'old' }, JWT_SECRET);
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': expired }, 'exp passed');
    });

    it('refuses a correctly signed token naming a device key that does not exist or belongs to another tenant', async () => {
      const other = await app.createTenant();
      const iat = Math.floor(Date.now() / 1000);
      const ghost = signJwt({ sub: '999999', tid: tenant.id, iat, exp: iat + 600, jti: 'ghost' }, JWT_SECRET);
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': ghost }, 'unknown key id');
      const crossed = signJwt({ sub: String(other.deviceKeyId), tid: tenant.id, iat, exp: iat + 600, jti: 'crossed' }, JWT_SECRET);
      await assertTokenRefusedEverywhere(instance, { 'x-access-token': crossed }, 'key of another tenant');
    });

    it('still accepts the valid token after all those refusals', async () => {
      const answer = await request('GET', `${instance.vc}/api/device/`, { token });
      assert.equal(answer.status, 200, answer.text);
    });
  });
});

/** A login body of the tenant's key with a wrong signature: a failed guess. */
function wrongBody(tenant: Pick<TestTenant, 'customerKey' | 'deviceKey'>, timestamp: number): Record<string, unknown> {
  return { ...loginBody(tenant, timestamp), device_signature: '0'.repeat(64) };
}

describe('login rate limit: failed logins (LOGIN_RATE_LIMIT=3, LOGIN_RATE_WINDOW_SECONDS=60)', () => {
  let app: TestApp;
  let instance: Instance;

  before(async () => {
    app = await startTestApp({ LOGIN_RATE_LIMIT: '3', LOGIN_RATE_WINDOW_SECONDS: '60' });
    instance = asInstance(app);
  });
  after(() => app.close());

  /** Asserts the three rate-limit headers: limit 3, the remaining count, a reset within the window. */
  function assertRateHeaders(answer: Answer, remaining: number, what: string): void {
    assert.equal(answer.headers.get('x-ratelimit-limit'), '3', `${what}: X-RateLimit-Limit`);
    assert.equal(answer.headers.get('x-ratelimit-remaining'), String(remaining), `${what}: X-RateLimit-Remaining`);
    const reset = Number(answer.headers.get('x-ratelimit-reset'));
    const now = app.clock.now() / 1000;
    assert.ok(Number.isInteger(reset), `${what}: X-RateLimit-Reset is epoch seconds (${answer.headers.get('x-ratelimit-reset')})`);
    assert.ok(reset >= Math.floor(now) && reset <= Math.ceil(now) + 60, `${what}: X-RateLimit-Reset ${reset} within 60 s of ${now}`);
  }

  it('counts wrong signatures and unknown keys down in the headers, not successes or 400s; the 4th guess is 429 with Retry-After', async () => {
    const tenant = await app.createTenant();
    const now = nowSeconds(instance);
    const ok = await login(instance, loginBody(tenant, now));
    assert.equal(ok.status, 200, ok.text);
    assertRateHeaders(ok, 3, '200');
    const wrong = await login(instance, wrongBody(tenant, now));
    assertMessage(wrong, 401, INVALID_CREDENTIALS, '1st guess');
    assertRateHeaders(wrong, 2, '1st guess (401)');
    const invalid = await login(instance, { ...loginBody(tenant, 1), timestamp: 1.5 });
    assert.equal(invalid.status, 400, invalid.text);
    assertRateHeaders(invalid, 2, '400');
    const stale = await login(instance, loginBody(tenant, now - 3600));
    assertMessage(stale, 401, INVALID_CREDENTIALS, 'stale timestamp');
    assertRateHeaders(stale, 2, 'stale timestamp (not a guess)');
    const again = await login(instance, loginBody(tenant, now));
    assert.equal(again.status, 200, again.text);
    assertRateHeaders(again, 2, '200 after a guess');
    assertRateHeaders(await login(instance, wrongBody(tenant, now)), 1, '2nd guess');
    const third = await login(instance, wrongBody(tenant, now));
    assertMessage(third, 401, INVALID_CREDENTIALS, '3rd guess');
    assertRateHeaders(third, 0, '3rd guess (401)');
    const limited = await login(instance, wrongBody(tenant, now));
    assertMessage(limited, 429, TOO_MANY, '4th guess');
    assertRateHeaders(limited, 0, '4th guess (429)');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited.headers.get('retry-after')}`);
    const unknown = { ...loginBody(tenant, now), device_key: 'no-such-key' };
    const guesses = [];
    for (let i = 0; i < 4; i += 1) guesses.push(await login(instance, unknown));
    assert.deepEqual(
      guesses.map((answer) => answer.status),
      [401, 401, 401, 429],
      'unknown keys are counted per key text',
    );
  });

  it('still accepts a correct login of a limited address and key: a guesser behind a fleet’s address never locks the fleet out', async () => {
    const tenant = await app.createTenant();
    for (let i = 0; i < 3; i += 1) assert.equal((await login(instance, wrongBody(tenant, nowSeconds(instance)))).status, 401);
    assertMessage(await login(instance, wrongBody(tenant, nowSeconds(instance))), 429, TOO_MANY, '4th guess');
    const genuine = await login(instance, loginBody(tenant, nowSeconds(instance)));
    assert.equal(genuine.status, 200, `a genuine device of the same key and address: ${genuine.text}`);
    assertRateHeaders(genuine, 0, 'genuine login while the guesses are limited');
    assertMessage(await login(instance, wrongBody(tenant, nowSeconds(instance))), 429, TOO_MANY, 'guessing stays limited');
  });

  it('never counts successful logins: 50 byte-identical logins of one key from one address all get tokens', async () => {
    const tenant = await app.createTenant();
    const body = loginBody(tenant, nowSeconds(instance));
    const answers = await Promise.all(Array.from({ length: 50 }, () => login(instance, body)));
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]));
    assertRateHeaders(answers[49], 3, '50th');
  });

  it('puts the headers on malformed-JSON and not-an-object answers too', async () => {
    const malformed = await request('POST', `${instance.auth}/auth/login`, {
      rawBody: '{"device_key": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400, malformed.text);
    assert.equal(malformed.headers.get('x-ratelimit-limit'), '3');
    assert.match(malformed.headers.get('x-ratelimit-remaining') ?? '', /^[0-3]$/);
    assert.match(malformed.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
    const array = await request('POST', `${instance.auth}/auth/login`, { body: [1, 2, 3] });
    assert.equal(array.status, 400, array.text);
    assert.equal(array.headers.get('x-ratelimit-limit'), '3');
    assert.match(array.headers.get('x-ratelimit-remaining') ?? '', /^[0-3]$/);
    assert.match(array.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
  });

  it('counts another device key from the same IP separately', async () => {
    const tenant = await app.createTenant();
    const sibling = await app.createDeviceKey(tenant, 'ESP32');
    for (let i = 0; i < 3; i += 1) await login(instance, wrongBody(tenant, nowSeconds(instance)));
    assertMessage(await login(instance, wrongBody(tenant, nowSeconds(instance))), 429, TOO_MANY, 'first key limited');
    const other = await login(instance, loginBody(sibling, nowSeconds(instance)));
    assert.equal(other.status, 200, other.text);
    assertRateHeaders(other, 3, 'other key');
  });

  it('resets the counter once the window has passed', async () => {
    const tenant = await app.createTenant();
    for (let i = 0; i < 3; i += 1) await login(instance, wrongBody(tenant, nowSeconds(instance)));
    assertMessage(await login(instance, wrongBody(tenant, nowSeconds(instance))), 429, TOO_MANY, 'limited');
    app.clock.advance(30);
    assertMessage(await login(instance, wrongBody(tenant, nowSeconds(instance))), 429, TOO_MANY, 'still limited 30 s later');
    app.clock.advance(31);
    const fresh = await login(instance, loginBody(tenant, nowSeconds(instance)));
    assert.equal(fresh.status, 200, `after the window: ${fresh.text}`);
    assertRateHeaders(fresh, 3, 'after the window');
    assertMessage(await login(instance, wrongBody(tenant, nowSeconds(instance))), 401, INVALID_CREDENTIALS, 'a new window');
  });

  it('does not let a client escape the limit by varying X-Forwarded-For when TRUST_PROXY is unset', async () => {
    const tenant = await app.createTenant();
    let last: Answer | undefined;
    for (let i = 1; i <= 4; i += 1) {
      last = await login(instance, wrongBody(tenant, nowSeconds(instance)), { 'x-forwarded-for': `198.51.100.${i}` });
    }
    assertMessage(last!, 429, TOO_MANY, '4th guess with a new X-Forwarded-For');
  });
});

describe('login rate limit behind a proxy (TRUST_PROXY=true)', () => {
  let app: TestApp;
  let instance: Instance;

  before(async () => {
    app = await startTestApp({ LOGIN_RATE_LIMIT: '3', LOGIN_RATE_WINDOW_SECONDS: '60', TRUST_PROXY: 'true' });
    instance = asInstance(app);
  });
  after(() => app.close());

  it('counts each forwarded client IP separately', async () => {
    const tenant = await app.createTenant();
    for (let i = 1; i <= 5; i += 1) {
      const answer = await login(instance, wrongBody(tenant, nowSeconds(instance)), { 'x-forwarded-for': `203.0.113.${i}` });
      assert.equal(answer.status, 401, `forwarded client ${i}: ${answer.text}`);
      assert.equal(answer.headers.get('x-ratelimit-remaining'), '2', `forwarded client ${i} has its own counter`);
    }
  });

  it('still limits one forwarded client IP', async () => {
    const tenant = await app.createTenant();
    const remaining: string[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < 4; i += 1) {
      last = await login(instance, wrongBody(tenant, nowSeconds(instance)), { 'x-forwarded-for': '203.0.113.77' });
      remaining.push(last.headers.get('x-ratelimit-remaining') ?? '');
    }
    assert.deepEqual(remaining, ['2', '1', '0', '0']);
    assertMessage(last!, 429, TOO_MANY, '4th guess from one forwarded IP');
  });
});

describe('JWT secret kept in the data directory, instances sharing one database (docs/decisions.md §4)', () => {
  type Started = Instance & { server: RunningServer };
  let first: TestApp;
  let restarted: Started | undefined;
  const extra: RunningServer[] = [];

  /** Starts another instance on the first app's data directory, without JWT_SECRET. */
  async function startOnSameDataDir(env: Record<string, string> = {}): Promise<Started> {
    const urls: Record<string, string> = {};
    // Every component on a free loopback port: a default one (0.0.0.0:300x) would be the first instance's too.
    for (const component of COMPONENTS) urls[URL_VARIABLES[component]] = `http://127.0.0.1:${await freePort()}`;
    const config = loadConfig({
      ...urls,
      ...first.database.env,
      LOG_LEVEL: 'error',
      ...env,
    });
    const clock = new TestClock();
    const server = await startServer(config, { clock, logger: ['fatal'] });
    extra.push(server);
    const base = (url: URL) => url.href.replace(/\/$/, '');
    return { server, clock, auth: base(config.urls.auth), vc: base(config.urls.vc), bc: base(config.urls.bc) };
  }

  async function newTenant(server: RunningServer): Promise<TestTenant> {
    const tenants = server.app.get(TenantService);
    const tenant = await tenants.createTenant(`shared-${Date.now()}-${Math.random()}`);
    const key = await tenants.createDeviceKey(tenant.id, 'ESP32', undefined, { singleDevice: true });
    return { id: tenant.id, name: 'shared', customerKey: tenant.customerKey, deviceKey: key.key, deviceKeyId: key.id, deviceType: 'ESP32' };
  }

  before(async () => {
    first = await startTestApp();
  });
  after(async () => {
    for (const server of extra.reverse()) await server.close();
    await first.close(); // its server is closed once, by the first test or here; then the database goes
  });

  let firstToken = '';
  let firstClaims: Record<string, unknown> = {};

  it('keeps a token issued before a restart valid after it, and still refuses its replayed login', async () => {
    const tenant = await first.createDeviceKey(await first.createTenant(), 'ESP32', { singleDevice: true });
    const firstInstance = asInstance(first);
    const body = loginBody(tenant, freshTimestamp(firstInstance, tenant.deviceKey));
    const issued = await login(firstInstance, body);
    assert.equal(issued.status, 200, issued.text);
    firstToken = (issued.body as { token: string }).token;
    firstClaims = decodePart(firstToken.split('.')[1]);
    await first.server.close();

    restarted = await startOnSameDataDir();
    const list = await request('GET', `${restarted.vc}/api/device/`, { token: firstToken });
    assert.equal(list.status, 200, `token after restart: ${list.text}`);
    const chain = await request('GET', `${restarted.bc}/device/${MAC}`, { token: firstToken });
    assert.notEqual(chain.status, 401, `token after restart on BC: ${chain.text}`);
    assertMessage(await login(restarted, body), 401, INVALID_CREDENTIALS, 'replay after restart');
  });

  it('refuses that token on an instance with another data directory (its own random secret)', async () => {
    assert.ok(firstToken, 'precondition: a token was issued');
    const other = await startTestApp();
    try {
      // The other instance has a tenant and key with the same ids, so only the secret differs.
      let twin = await other.createTenant();
      while (twin.deviceKeyId < Number(firstClaims['sub'])) twin = await other.createDeviceKey(twin, 'ESP32');
      assert.equal(String(twin.deviceKeyId), firstClaims['sub']);
      assert.equal(twin.id, firstClaims['tid']);
      const answer = await request('GET', `${other.urls.vc}/api/device/`, { token: firstToken });
      assertMessage(answer, 401, INVALID_TOKEN, 'token from another data directory');
    } finally {
      await other.close();
    }
  });

  it('refuses a replay on another instance sharing the database', async () => {
    assert.ok(restarted, 'precondition: the restarted instance runs');
    const a = restarted;
    const b = await startOnSameDataDir();
    const tenant = await newTenant(a.server);
    const body = loginBody(tenant, freshTimestamp(a, tenant.deviceKey));
    const accepted = await login(a, body);
    assert.equal(accepted.status, 200, accepted.text);
    assertMessage(await login(b, body), 401, INVALID_CREDENTIALS, 'replay on the other instance');
    const token = (accepted.body as { token: string }).token;
    assert.equal((await request('GET', `${b.vc}/api/device/`, { token })).status, 200, 'token of one instance works on the other');
  });

  it('shares failed-login counters between instances on one database', async () => {
    const a = await startOnSameDataDir({ LOGIN_RATE_LIMIT: '3' });
    const b = await startOnSameDataDir({ LOGIN_RATE_LIMIT: '3' });
    const tenant = await newTenant(a.server);
    const remaining: string[] = [];
    let last: Answer | undefined;
    for (const instance of [a, b, a, b]) {
      last = await login(instance, wrongBody(tenant, nowSeconds(instance)));
      remaining.push(last.headers.get('x-ratelimit-remaining') ?? '');
    }
    assert.deepEqual(remaining, ['2', '1', '0', '0']);
    assertMessage(last!, 429, TOO_MANY, '4th guess across two instances');
  });
});
