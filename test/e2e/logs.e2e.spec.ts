import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { get, post, request, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';

// README "Operations": JSON log lines, one per request, with the request id; no secrets.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RequestLine {
  level: string;
  msg: string;
  reqId: string;
  component: string;
  method: string;
  path: string;
  route: string;
  status: number;
  responseTimeMs: number;
}

describe('logs', () => {
  let app: TestApp;
  let tenant: TestTenant;
  const written: string[] = [];
  const lines = () => written.join('').split('\n').filter(Boolean);
  const parsed = () => lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  const requestLines = (reqId: string) =>
    parsed().filter((l) => l['msg'] === 'request completed' && l['reqId'] === reqId) as unknown[] as RequestLine[];

  before(async () => {
    // One test breaks the database on purpose to see a 500 logged.
    app = await startTestApp({ LOG_LEVEL: 'log' }, undefined, {
      logDestination: { write: (line: string) => void written.push(line) },
      allowServerErrors: true,
    });
    tenant = await app.createTenant();
  });
  after(() => app.close());

  it('writes every line as JSON, Nest’s own messages included', () => {
    const all = parsed();
    assert.ok(all.length > 0);
    assert.ok(
      all.some((l) => l['context'] === 'Listeners' && l['level'] === 'info'),
      'the Listeners start-up message is a JSON line',
    );
    for (const line of all) {
      assert.equal(typeof line['time'], 'string');
      assert.equal(typeof line['level'], 'string');
    }
  });

  it('echoes a sane X-Request-Id and logs one line for the request with it', async () => {
    const answer = await request('GET', `${app.urls.vc}/api/device/AC6701020304?page=2`, { headers: { 'X-Request-Id': 'edge-7.req_42' } });
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('x-request-id'), 'edge-7.req_42');
    const found = requestLines('edge-7.req_42');
    assert.equal(found.length, 1, lines().join('\n'));
    const [line] = found;
    assert.deepEqual(
      { level: line.level, component: line.component, method: line.method, path: line.path, route: line.route, status: line.status },
      { level: 'info', component: 'vc', method: 'GET', path: '/api/device/AC6701020304', route: '/api/device/:mac', status: 401 },
    );
    assert.ok(line.responseTimeMs >= 0 && line.responseTimeMs < 10_000, String(line.responseTimeMs));
  });

  it('generates a request id when none (or an unusable one) is sent, on every listener', async () => {
    for (const [base, header] of [
      [app.urls.auth, undefined],
      [app.urls.bc, 'has spaces'],
      [app.urls.operator, 'x'.repeat(129)],
      [app.urls.vc, '{"level":"fatal"}'],
    ] as const) {
      const answer = await request('GET', `${base}/healthz`, { headers: header ? { 'X-Request-Id': header } : {} });
      const id = answer.headers.get('x-request-id') ?? '';
      assert.match(id, UUID, `${base}: ${id}`);
      assert.equal(requestLines(id).length, 1, `${base}: one line for ${id}`);
    }
    assert.ok(!written.join('').includes('has spaces'));
  });

  it('puts the request id on the same request’s other lines (a refused login’s reason)', async () => {
    const timestamp = Math.floor(app.clock.now() / 1000);
    const answer = await request('POST', `${app.urls.auth}/auth/login`, {
      body: { device_key: tenant.deviceKey, timestamp, device_signature: 'ab'.repeat(32) },
      headers: { 'X-Request-Id': 'login-refused-1' },
    });
    assert.equal(answer.status, 401);
    const reason = parsed().find((l) => l['reqId'] === 'login-refused-1' && l['context'] === 'Login');
    assert.equal(reason?.['level'], 'warn');
    assert.match(String(reason?.['msg']), /wrong signature/);
  });

  it('never writes a login’s signature, the customer key, a token, or a query string', async () => {
    const timestamp = Math.floor(app.clock.now() / 1000) - 5;
    const signature = deviceSignature(tenant.customerKey, String(timestamp), tenant.deviceKey);
    const login = await post(`${app.urls.auth}/auth/login?device_signature=${signature}`, {
      device_key: tenant.deviceKey,
      timestamp,
      device_signature: signature,
    });
    assert.equal(login.status, 200, login.text);
    const token = (login.body as { token: string }).token;
    const wrong = deviceSignature(tenant.customerKey, String(timestamp + 1), tenant.deviceKey).replace(/^./, (c) =>
      c === 'a' ? 'b' : 'a',
    );
    assert.equal(
      (await post(`${app.urls.auth}/auth/login`, { device_key: tenant.deviceKey, timestamp, device_signature: wrong })).status,
      401,
    );
    assert.equal((await get(`${app.urls.vc}/api/device/?access_token=${token}`, token)).status, 200);
    assert.equal((await request('GET', `${app.urls.vc}/api/device/`, { headers: { Authorization: `Bearer ${token}` } })).status, 200);
    assert.equal((await request('GET', `${app.urls.vc}/nowhere?token=${token}`, { headers: { Cookie: `session=${token}` } })).status, 404);

    // A 500 is logged with its cause: the path, still not the query string.
    const dataSource = app.server.app.get(DataSource);
    await dataSource.destroy();
    try {
      const failed = await get(`${app.urls.vc}/api/device/?token=${token}`, token);
      assert.equal(failed.status, 500, failed.text);
    } finally {
      await dataSource.initialize();
    }
    assert.ok(
      parsed().some((l) => l['level'] === 'error' && l['context'] === 'HttpError'),
      'the 500 is logged',
    );

    const text = written.join('');
    for (const [what, secret] of [
      ['signature', signature],
      ['wrong signature', wrong],
      ['customer key', tenant.customerKey],
      ['token', token],
      ['token signature part', token.split('.')[2]],
    ] as const) {
      assert.ok(!text.includes(secret), `${what} appears in the log`);
    }
    assert.ok(!text.includes('?'), 'no query string is logged');
  });

  it('follows LOG_LEVEL: at warn, no request lines, warnings still', async () => {
    const quiet: string[] = [];
    const other = await startTestApp({ LOG_LEVEL: 'warn' }, undefined, {
      logDestination: { write: (line: string) => void quiet.push(line) },
    });
    try {
      const otherTenant = await other.createTenant();
      const timestamp = Math.floor(other.clock.now() / 1000);
      await post(`${other.urls.auth}/auth/login`, { device_key: otherTenant.deviceKey, timestamp, device_signature: 'ab'.repeat(32) });
    } finally {
      await other.close();
    }
    const levels = quiet.map((line) => (JSON.parse(line) as { level: string }).level);
    assert.ok(levels.includes('warn'), quiet.join(''));
    assert.ok(
      levels.every((level) => ['warn', 'error', 'fatal'].includes(level)),
      quiet.join(''),
    );
  });
});

// docs/deployment.md "Listeners": the start-up lines name the base URLs as configured; Nest's
// route mapping is debug detail, and names the URLs the routes answer on too.
describe('start-up log lines', () => {
  const URLS = {
    AUTH_URL: 'http://127.0.0.1:{port0}',
    VC_URL: 'http://127.0.0.1:{port0}/fw/vc',
    BC_URL: 'http://127.0.0.1:{port2}/chain',
    OPERATOR_URL: 'http://127.0.0.1:{port3}',
    IPFS_URL: 'http://127.0.0.1:{port4}',
    TOOLS_URL: 'http://127.0.0.1:{port5}/tools',
  };
  const MAPPING = ['RoutesResolver', 'RouterExplorer', 'InstanceLoader'];

  async function startUpLines(level: string): Promise<{ app: TestApp; lines: Record<string, unknown>[] }> {
    const written: string[] = [];
    const app = await startTestApp({ LOG_LEVEL: level }, URLS, { logDestination: { write: (line: string) => void written.push(line) } });
    await app.close();
    return {
      app,
      lines: written
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    };
  }

  it('at the default level: one line per listener naming each configured base URL, no route mapping, no internal prefix', async () => {
    const { app, lines } = await startUpLines('log');
    const listeners = lines.filter((l) => l['context'] === 'Listeners');
    assert.equal(listeners.length, 7, JSON.stringify(listeners)); // auth and vc share a listener; DDI and Mender have their own
    const named = Object.assign({}, ...listeners.map((l) => l['components'] as Record<string, string>)) as Record<string, string>;
    assert.deepEqual(named, app.urls);
    const shared = listeners.find((l) => (l['components'] as Record<string, string>)['vc'] !== undefined);
    assert.equal(shared?.['msg'], `listening on ${app.urls.auth}: auth at ${app.urls.auth}, vc at ${app.urls.vc}`);
    assert.match(app.urls.vc, /\/fw\/vc$/);
    assert.deepEqual(
      lines.filter((l) => MAPPING.includes(String(l['context']))),
      [],
      'route mapping is debug detail',
    );
    assert.ok(lines.some((l) => l['msg'] === 'Nest application successfully started'));
    for (const line of lines) assert.ok(!JSON.stringify(line).includes('/__'), `internal prefix in ${JSON.stringify(line)}`);
  });

  it('at debug: route mapping lines name the URLs the routes answer on, never the internal prefix', async () => {
    const { app, lines } = await startUpLines('debug');
    const mapped = lines.filter((l) => l['context'] === 'RouterExplorer').map((l) => String(l['msg']));
    assert.ok(mapped.includes(`Mapped {${app.urls.vc}/api/device/register, POST} route`), mapped.join('\n'));
    assert.ok(mapped.includes(`Mapped {${app.urls.bc}/firmware/:id, GET} route`), mapped.join('\n'));
    assert.ok(mapped.includes(`Mapped {${app.urls.auth}/auth/login, POST} route`), mapped.join('\n'));
    assert.ok(
      mapped.every((msg) =>
        Object.values(app.urls).some((base) => msg.startsWith(`Mapped {${base}/`) || msg.startsWith(`Mapped {${base},`)),
      ),
      mapped.join('\n'),
    );
    assert.ok(lines.some((l) => l['context'] === 'RoutesResolver' && l['level'] === 'debug'));
    for (const line of lines) assert.ok(!JSON.stringify(line).includes('/__'), `internal prefix in ${JSON.stringify(line)}`);
  });
});
