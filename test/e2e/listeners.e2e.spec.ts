import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

// docs/decisions.md §2 (three base URLs, one process; operator listener apart) and §3 (unknown route 404).

const NOT_FOUND = { message: 'Not Found' };
const MAC = '02:00:00:00:0B:01';

/** The origin (scheme://host:port) of a base URL, without its path prefix. */
const originOf = (base: string): string => new URL(base).origin;

function assertNotFound(answer: Answer, what: string): void {
  assert.equal(answer.status, 404, `${what}: status ${answer.status} ${answer.text}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `${what}: content-type`);
  assert.deepEqual(answer.body, NOT_FOUND, what);
}

/** A login body signed as field devices sign it (docs/decisions.md §1), with a timestamp not used before. */
let lastTimestamp = 0;
function loginBody(app: TestApp, tenant: TestTenant): Record<string, unknown> {
  lastTimestamp = Math.max(lastTimestamp + 1, Math.floor(app.clock.now() / 1000) - 200);
  return {
    device_key: tenant.deviceKey,
    timestamp: lastTimestamp,
    device_signature: deviceSignature(tenant.customerKey, String(lastTimestamp), tenant.deviceKey),
  };
}

/** Logs in at `authBase` (which may differ from the harness's idea of it) and returns the token. */
async function tokenAt(app: TestApp, authBase: string, tenant: TestTenant): Promise<string> {
  const answer = await request('POST', `${authBase}/auth/login`, { body: loginBody(app, tenant) });
  assert.equal(answer.status, 200, `login at ${authBase}: ${answer.text}`);
  return (answer.body as { token: string }).token;
}

describe('separate listeners (AUTH, VC, BC, OPERATOR on their own ports)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant();
    token = await tokenAt(app, app.urls.auth, tenant);
    const registered = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      body: { mac: MAC, firmware_version: '1.0.0', name: 'listener' },
    });
    assert.equal(registered.status, 200, registered.text);
  });
  after(() => app.close());

  it('opens four distinct ports', () => {
    const ports = new Set([app.urls.auth, app.urls.vc, app.urls.bc, app.urls.operator].map((u) => new URL(u).port));
    assert.equal(ports.size, 4);
  });

  it('answers each component on its own listener', async () => {
    const login = await request('POST', `${app.urls.auth}/auth/login`, { body: loginBody(app, tenant) });
    assert.equal(login.status, 200, login.text);
    const list = await request('GET', `${app.urls.vc}/api/device/`, { token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body, [{ mac: MAC, name: 'listener', 'firmware-version': '1.0.0' }]);
    // The blockchain lookup route exists: an absent record is its own 404, not the unknown-route 404.
    const chain = await request('GET', `${app.urls.bc}/firmware/999999`, { token });
    assert.equal(chain.status, 404, chain.text);
    assert.deepEqual(chain.body, { message: 'Firmware not found' });
  });

  it('does not answer login on the VC, BC or operator listener', async () => {
    for (const base of [app.urls.vc, app.urls.bc, app.urls.operator]) {
      assertNotFound(await request('POST', `${base}/auth/login`, { body: loginBody(app, tenant) }), `login on ${base}`);
    }
  });

  it('does not answer version-controller routes on the AUTH, BC or operator listener, even with a valid token', async () => {
    for (const base of [app.urls.auth, app.urls.bc, app.urls.operator]) {
      assertNotFound(await request('GET', `${base}/api/device/`, { token }), `device list on ${base}`);
      assertNotFound(await request('GET', `${base}/api/device/${MAC}`, { token }), `device on ${base}`);
      assertNotFound(
        await request('POST', `${base}/api/device/register`, { token, body: { mac: MAC, firmware_version: '1.0.0' } }),
        `register on ${base}`,
      );
      assertNotFound(await request('DELETE', `${base}/api/device/`, { token, body: { mac: MAC } }), `delete on ${base}`);
      assertNotFound(await request('GET', `${base}/api/report/json`, { token }), `report on ${base}`);
      assertNotFound(
        await request('POST', `${base}/api/device/next/rollout`, { token, body: { mac: MAC, firmware_version: '1.0.0' } }),
        `next rollout on ${base}`,
      );
    }
    const still = await request('GET', `${app.urls.vc}/api/device/${MAC}`, { token });
    assert.equal(still.status, 200, 'the device was not deleted through another listener');
  });

  it('does not answer blockchain routes on the AUTH, VC or operator listener', async () => {
    for (const base of [app.urls.auth, app.urls.vc, app.urls.operator]) {
      assertNotFound(await request('GET', `${base}/device/${MAC}`, { token }), `chain device on ${base}`);
      assertNotFound(await request('GET', `${base}/firmware/1`, { token }), `chain firmware on ${base}`);
    }
  });

  it('answers the operator listener (it accepts connections) but with no device route', async () => {
    const answer = await request('GET', `${app.urls.operator}/`);
    assert.ok(answer.status > 0, 'the operator listener answers HTTP');
    assertNotFound(await request('GET', `${app.urls.operator}/no/such/route`), 'unknown route on operator');
  });

  it('answers an unknown route with 404 Not Found as JSON on every listener, with or without a token', async () => {
    for (const base of [app.urls.auth, app.urls.vc, app.urls.bc, app.urls.operator]) {
      assertNotFound(await request('GET', `${base}/no/such/route`), `GET unknown on ${base}`);
      assertNotFound(await request('GET', `${base}/no/such/route`, { token }), `GET unknown with token on ${base}`);
      assertNotFound(await request('POST', `${base}/no/such/route`, { body: { a: 1 } }), `POST unknown on ${base}`);
      assertNotFound(await request('GET', `${base}/api/devices/`, { token }), `near miss on ${base}`);
    }
    assertNotFound(await request('GET', `${app.urls.vc}/`, { token }), 'root of the VC listener');
    assertNotFound(await request('POST', `${app.urls.auth}/auth/logout`, { body: {} }), 'unknown auth route');
  });

  it('lists devices with and without the trailing slash', async () => {
    const withSlash = await request('GET', `${app.urls.vc}/api/device/`, { token });
    const without = await request('GET', `${app.urls.vc}/api/device`, { token });
    assert.equal(withSlash.status, 200, withSlash.text);
    assert.equal(without.status, 200, without.text);
    assert.deepEqual(without.body, withSlash.body);
    assert.deepEqual(without.body, [{ mac: MAC, name: 'listener', 'firmware-version': '1.0.0' }]);
  });
});

describe('shared listener (AUTH_URL and VC_URL on one host:port)', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp(
      {},
      { AUTH_URL: 'http://127.0.0.1:{port0}', VC_URL: 'http://127.0.0.1:{port0}', BC_URL: 'http://127.0.0.1:{port2}' },
    );
  });
  after(() => app.close());

  it('serves login and the version controller on the same port', async () => {
    assert.equal(originOf(app.urls.auth), originOf(app.urls.vc));
    const tenant = await app.createTenant();
    const token = await tokenAt(app, app.urls.auth, tenant);
    const registered = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      body: { mac: MAC, firmware_version: '2.0.0' },
    });
    assert.equal(registered.status, 200, registered.text);
    assert.deepEqual(registered.body, { message: 'Device inserted!' });
    const list = await request('GET', `${app.urls.vc}/api/device/`, { token });
    assert.equal(list.status, 200, list.text);
    assert.equal((list.body as unknown[]).length, 1);
  });

  it('keeps the blockchain lookup off the shared port and the shared components off the BC port', async () => {
    const tenant = await app.createTenant();
    const token = await tokenAt(app, app.urls.auth, tenant);
    assertNotFound(await request('GET', `${app.urls.vc}/device/${MAC}`, { token }), 'chain device on the shared port');
    assertNotFound(await request('GET', `${app.urls.vc}/firmware/1`, { token }), 'chain firmware on the shared port');
    assertNotFound(await request('POST', `${app.urls.bc}/auth/login`, { body: loginBody(app, tenant) }), 'login on BC');
    assertNotFound(await request('GET', `${app.urls.bc}/api/device/`, { token }), 'device list on BC');
    const chain = await request('GET', `${app.urls.bc}/firmware/999999`, { token });
    assert.deepEqual(chain.body, { message: 'Firmware not found' });
  });
});

describe('path prefixes', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let port0: string;
  let port1: string;
  let port2: string;

  before(async () => {
    // AUTH and VC share one port under different prefixes; BC is alone on its port under a prefix.
    app = await startTestApp(
      {},
      { AUTH_URL: 'http://127.0.0.1:{port0}/gate', VC_URL: 'http://127.0.0.1:{port0}/fleet', BC_URL: 'http://127.0.0.1:{port2}/chain' },
    );
    port0 = originOf(app.urls.auth);
    port1 = originOf(app.urls.vc);
    port2 = originOf(app.urls.bc);
    tenant = await app.createTenant();
    token = await tokenAt(app, `${port0}/gate`, tenant);
  });
  after(() => app.close());

  it('mounts each component under its prefix', async () => {
    assert.equal(port0, port1, 'precondition: AUTH and VC share a port');
    assert.equal(app.urls.vc, `${port0}/fleet`);
    const registered = await request('POST', `${port0}/fleet/api/device/register`, {
      token,
      body: { mac: MAC, firmware_version: '3.0.0', name: 'pfx' },
    });
    assert.deepEqual(registered.body, { message: 'Device inserted!' });
    const list = await request('GET', `${port0}/fleet/api/device/`, { token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body, [{ mac: MAC, name: 'pfx', 'firmware-version': '3.0.0' }]);
    const noSlash = await request('GET', `${port0}/fleet/api/device`, { token });
    assert.equal(noSlash.status, 200, noSlash.text);
    assert.deepEqual(noSlash.body, list.body);
    const chain = await request('GET', `${port2}/chain/firmware/999999`, { token });
    assert.deepEqual(chain.body, { message: 'Firmware not found' });
  });

  it("answers 404 for a component's routes without its prefix", async () => {
    assertNotFound(await request('POST', `${port0}/auth/login`, { body: loginBody(app, tenant) }), 'login without /gate');
    assertNotFound(await request('GET', `${port0}/api/device/`, { token }), 'device list without /fleet');
    assertNotFound(await request('GET', `${port0}/api/device`, { token }), 'device list without /fleet, no slash');
    assertNotFound(await request('GET', `${port2}/device/${MAC}`, { token }), 'chain device without /chain');
    assertNotFound(await request('GET', `${port2}/firmware/1`, { token }), 'chain firmware without /chain');
  });

  it("answers 404 for a component's routes under another component's prefix", async () => {
    assertNotFound(await request('POST', `${port0}/fleet/auth/login`, { body: loginBody(app, tenant) }), 'login under /fleet');
    assertNotFound(await request('GET', `${port0}/gate/api/device/`, { token }), 'device list under /gate');
    assertNotFound(await request('GET', `${port0}/chain/device/${MAC}`, { token }), 'chain under /chain on the AUTH/VC port');
    assertNotFound(await request('GET', `${port2}/chain/api/device/`, { token }), 'device list under /chain on the BC port');
    assertNotFound(await request('GET', `${port2}/fleet/api/device/`, { token }), 'device list under /fleet on the BC port');
  });

  it('matches the prefix as whole path segments', async () => {
    assertNotFound(await request('GET', `${port0}/fleetX/api/device/`, { token }), '/fleetX');
    assertNotFound(await request('GET', `${port0}/flee/api/device/`, { token }), '/flee');
    assertNotFound(await request('POST', `${port0}/gateway/auth/login`, { body: loginBody(app, tenant) }), '/gateway');
  });

  it('answers the bare prefix and unknown routes under it with 404 Not Found', async () => {
    assertNotFound(await request('GET', `${port0}/fleet/`, { token }), '/fleet/');
    assertNotFound(await request('GET', `${port0}/fleet/no/such/route`, { token }), '/fleet/no/such/route');
    assertNotFound(await request('GET', `${port2}/chain/no/such/route`, { token }), '/chain/no/such/route');
  });
});

describe('a base URL whose prefix ends with a slash', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp({}, { VC_URL: 'http://127.0.0.1:{port1}/fleet/' });
  });
  after(() => app.close());

  it('mounts the component under the prefix without the slash', async () => {
    const origin = originOf(app.urls.vc);
    const tenant = await app.createTenant();
    const token = await tokenAt(app, app.urls.auth, tenant);
    const list = await request('GET', `${origin}/fleet/api/device/`, { token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body, []);
    assertNotFound(await request('GET', `${origin}/api/device/`, { token }), 'without the prefix');
  });
});
