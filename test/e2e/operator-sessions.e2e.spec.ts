import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { OperatorUserService } from '#src/domain/access/operator-user.service.js';
import { request, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import { lastLine, runCli, runCliWithInput } from '#test/support/operator.js';

const IDLE_SECONDS = 600;
const MAX_SECONDS = 3600;
const PASSWORD = 'correct horse battery';
const ENDED = { message: 'Your session has ended: sign in again' };
const REFUSED = { message: 'Wrong username or password' };
const VIEWER = { message: 'Viewers may only read: this change needs the admin role' };
const CROSS_SITE = { message: 'Cross-site request refused' };

/** The value of the session cookie an answer sets (`''` when it clears it), or `undefined`. */
function setCookie(answer: Answer): { value: string; attributes: string[] } | undefined {
  const header = answer.headers.get('set-cookie');
  if (header === null) return undefined;
  const [pair, ...attributes] = header.split(/;\s*/);
  const [name, value] = pair.split('=');
  assert.equal(name, 'firmledger_session');
  return { value, attributes };
}

/**
 * Operator console sessions over HTTP: sign-in, the cookie's attributes, idle and absolute expiry
 * (on the injected clock), sign-out, the same-origin check of changes, roles, disabling an
 * account, the sign-in throttle, and the CLI that manages accounts.
 */
describe('operator console sessions', () => {
  let app: TestApp;
  const lines: Record<string, unknown>[] = [];
  const users = () => app.server.app.get(OperatorUserService);

  const signIn = (username: string, password = PASSWORD, headers: Record<string, string> = {}) =>
    request('POST', `${app.urls.operator}/session`, { body: { username, password }, headers });
  const withCookie = (cookie: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
    request(method, `${app.urls.operator}${path}`, { ...options, headers: { cookie: `firmledger_session=${cookie}`, ...options.headers } });
  /** Signs in and answers the session cookie's value. */
  const session = async (username: string): Promise<string> => {
    const answer = await signIn(username);
    assert.equal(answer.status, 200, answer.text);
    return setCookie(answer)!.value;
  };

  before(async () => {
    const logs = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    app = await startTestApp(
      { OPERATOR_SESSION_IDLE_SECONDS: String(IDLE_SECONDS), OPERATOR_SESSION_MAX_SECONDS: String(MAX_SECONDS), LOG_LEVEL: 'log' },
      undefined,
      { logDestination: logs },
    );
    await users().create('alice', PASSWORD, 'admin');
    await users().create('victor', PASSWORD, 'viewer');
    await app.createTenant('acme');
  });
  after(() => app.close());

  describe('sign-in', () => {
    it('sets an HttpOnly, SameSite=Strict session cookie for the whole operator base URL, lasting the absolute lifetime', async () => {
      const answer = await signIn('alice');
      assert.equal(answer.status, 200, answer.text);
      const cookie = setCookie(answer)!;
      assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(cookie.attributes, ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${MAX_SECONDS}`]);
      const body = answer.body as { operator: { username: string; role: string; expires_at: string } };
      assert.deepEqual(body.operator, {
        username: 'alice',
        role: 'admin',
        expires_at: new Date(app.clock.now() + MAX_SECONDS * 1000).toISOString(),
      });
      const who = await withCookie(cookie.value, 'GET', '/session');
      assert.deepEqual(who.body, body);
    });

    it('answers one refusal for an unknown username, a wrong password and a disabled account, and sets no cookie', async () => {
      await users().create('gone', PASSWORD, 'admin');
      await users().disable('gone');
      for (const [username, password] of [
        ['nobody', PASSWORD],
        ['alice', 'wrong password here'],
        ['gone', PASSWORD],
      ]) {
        const answer = await signIn(username, password);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 401, body: REFUSED }, username);
        assert.equal(setCookie(answer), undefined);
      }
    });

    it('answers who is signed in as null without a session, never 401', async () => {
      const answer = await request('GET', `${app.urls.operator}/session`);
      assert.deepEqual({ status: answer.status, body: answer.body }, { status: 200, body: { operator: null } });
    });

    it('names a missing field in a 400', async () => {
      const answer = await request('POST', `${app.urls.operator}/session`, { body: { username: 'alice' } });
      assert.deepEqual(
        { status: answer.status, body: answer.body },
        { status: 400, body: { message: 'password is required', field: 'password' } },
      );
    });
  });

  describe('the session cookie on the operator API', () => {
    it('admits reads and changes, and the ledger and the log name the user', async () => {
      const cookie = await session('alice');
      const created = await withCookie(cookie, 'POST', '/tenants', { body: { name: 'by-alice' } });
      assert.equal(created.status, 201, created.text);
      const entries = await withCookie(cookie, 'GET', '/ledger/entries?order=desc&per_page=1');
      const [entry] = (entries.body as { items: { type: string; actor: string }[] }).items;
      assert.deepEqual({ type: entry.type, actor: entry.actor }, { type: 'tenant.created', actor: 'user:alice' });
      const line = lines.find((l) => l['method'] === 'POST' && l['path'] === '/tenants');
      assert.equal(line?.['actor'], 'user:alice');
      assert.equal(line?.['status'], 201);
    });

    it('ends after the idle time without a request, and says so; the cookie is cleared', async () => {
      const cookie = await session('alice');
      app.clock.advance(IDLE_SECONDS - 60);
      assert.equal((await withCookie(cookie, 'GET', '/tenants')).status, 200, 'a request just before the idle end');
      app.clock.advance(IDLE_SECONDS - 60);
      assert.equal((await withCookie(cookie, 'GET', '/tenants')).status, 200, 'activity moved the idle end');
      app.clock.advance(IDLE_SECONDS + 1);
      const ended = await withCookie(cookie, 'GET', '/tenants');
      assert.deepEqual({ status: ended.status, body: ended.body }, { status: 401, body: ENDED });
      assert.equal(setCookie(ended)?.value, '');
      assert.ok(setCookie(ended)?.attributes.includes('Max-Age=0'));
      assert.deepEqual((await withCookie(cookie, 'GET', '/session')).body, { operator: null });
    });

    it('ends at the absolute end however active it is', async () => {
      const cookie = await session('alice');
      for (let elapsed = 0; elapsed + 500 < MAX_SECONDS; elapsed += 500) {
        app.clock.advance(500);
        assert.equal((await withCookie(cookie, 'GET', '/tenants')).status, 200, `after ${elapsed + 500} s`);
      }
      app.clock.advance(500);
      assert.deepEqual((await withCookie(cookie, 'GET', '/tenants')).body, ENDED);
    });

    it('ends at sign-out: the cookie is cleared and no longer admits anything', async () => {
      const cookie = await session('alice');
      const out = await withCookie(cookie, 'POST', '/session/sign-out');
      assert.deepEqual({ status: out.status, body: out.body }, { status: 200, body: { operator: null } });
      assert.equal(setCookie(out)?.value, '');
      const after = await withCookie(cookie, 'GET', '/tenants');
      assert.deepEqual({ status: after.status, body: after.body }, { status: 401, body: ENDED });
    });

    it('refuses a change a browser sent from another site, and changes nothing', async () => {
      const cookie = await session('alice');
      const origin = new URL(app.urls.operator).origin;
      const forged: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site', origin },
      ];
      for (const headers of forged) {
        const answer = await withCookie(cookie, 'POST', '/tenants', { body: { name: 'forged' }, headers });
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 403, body: CROSS_SITE }, JSON.stringify(headers));
      }
      const forgedSignIn = await signIn('alice', PASSWORD, { origin: 'https://evil.example' });
      assert.deepEqual({ status: forgedSignIn.status, body: forgedSignIn.body }, { status: 403, body: CROSS_SITE });
      const tenants = (await withCookie(cookie, 'GET', '/tenants')).body as { items: { name: string }[] };
      assert.ok(!tenants.items.some((t) => t.name === 'forged'));
      // The console's own requests (same origin) go through.
      const own = await withCookie(cookie, 'POST', '/tenants', {
        body: { name: 'same-origin' },
        headers: { origin, 'sec-fetch-site': 'same-origin' },
      });
      assert.equal(own.status, 201, own.text);
    });

    it('changes nothing on GET: sign-out and rollout actions are POST only', async () => {
      const cookie = await session('alice');
      for (const path of ['/session/sign-out', '/tenants/acme/customer-key/rotate', '/tenants/acme/rollouts/1/start']) {
        const answer = await withCookie(cookie, 'GET', path);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 404, body: { message: 'Not Found' } }, path);
      }
      assert.equal((await withCookie(cookie, 'GET', '/tenants')).status, 200, 'still signed in');
    });

    it('cuts a disabled account off at once, and it cannot sign in again', async () => {
      await users().create('mallory', PASSWORD, 'admin');
      const cookie = await session('mallory');
      assert.equal((await withCookie(cookie, 'GET', '/tenants')).status, 200);
      const disabled = await runCli(app, 'operator-user', 'disable', 'mallory');
      assert.equal(disabled.code, 0, disabled.stderr);
      const next = await withCookie(cookie, 'GET', '/tenants');
      assert.deepEqual({ status: next.status, body: next.body }, { status: 401, body: ENDED });
      assert.deepEqual((await signIn('mallory')).body, REFUSED);
    });
  });

  describe('roles', () => {
    const CHANGES: [path: string, body: unknown][] = [
      ['/tenants', { name: 'by-viewer' }],
      ['/tenants/acme/customer-key/rotate', undefined],
      ['/tenants/acme/device-keys', { device_type: 'ESP32' }],
      ['/tenants/acme/device-keys/1/revoke', undefined],
      ['/tenants/acme/groups', { name: 'viewers' }],
      ['/tenants/acme/groups/viewers/members', { macs: ['AC:67:B2:01:02:03'] }],
      ['/tenants/acme/groups/viewers/members/remove', { macs: ['AC:67:B2:01:02:03'] }],
      ['/tenants/acme/rollouts', { name: 'x', firmware_id: 1, group: 'viewers', start_date: '2026-01-01 00:00:00' }],
      ['/tenants/acme/rollouts/1/start', undefined],
      ['/tenants/acme/rollouts/1/pause', undefined],
      ['/tenants/acme/rollouts/1/resume', undefined],
      ['/tenants/acme/rollouts/1/cancel', undefined],
    ];

    it('lets a viewer read everything and refuses every change with 403, whether signed in or with a viewer token', async () => {
      const before = await app.database.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM ledger_entry');
      const cookie = await session('victor');
      const tokenOutcome = await runCli(app, 'operator-token', 'create', '--name', 'dashboards', '--role', 'viewer', '--json');
      assert.equal(tokenOutcome.code, 0, tokenOutcome.stderr);
      const token = (JSON.parse(tokenOutcome.stdout) as { token: string; role: string }).token;
      const as = {
        session: (method: string, path: string, body?: unknown) => withCookie(cookie, method, path, { body }),
        token: (method: string, path: string, body?: unknown) => request(method, `${app.urls.operator}${path}`, { bearer: token, body }),
      };
      for (const [who, send] of Object.entries(as)) {
        for (const path of ['/tenants', '/tenants/acme/devices', '/tenants/acme/fleet', '/ledger/entries', '/ledger/verify']) {
          assert.equal((await send('GET', path)).status, 200, `${who} GET ${path}`);
        }
        for (const [path, body] of CHANGES) {
          const answer = await send('POST', path, body);
          assert.deepEqual({ status: answer.status, body: answer.body }, { status: 403, body: VIEWER }, `${who} POST ${path}`);
        }
        const upload = await request('POST', `${app.urls.operator}/tenants/acme/firmware?version=9.9.9&device_type=ESP32`, {
          rawBody: Buffer.from('firmware'),
          headers: {
            'content-type': 'application/octet-stream',
            ...(who === 'token' ? { authorization: `Bearer ${token}` } : { cookie: `firmledger_session=${cookie}` }),
          },
        });
        assert.deepEqual({ status: upload.status, body: upload.body }, { status: 403, body: VIEWER }, `${who} firmware upload`);
      }
      const afterCount = await app.database.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM ledger_entry');
      assert.equal(Number(afterCount[0].n), Number(before[0].n), 'nothing was recorded');
    });
  });

  describe('the sign-in throttle', () => {
    it('after 10 failed sign-ins of a username from one address, refuses that username there with 429 and Retry-After, even with its password', async () => {
      await users().create('tess', PASSWORD, 'viewer');
      assert.equal((await signIn('tess')).status, 200, 'a success does not count');
      for (let i = 1; i <= 9; i++) assert.equal((await signIn('tess', 'not the password')).status, 401, `failure ${i}`);
      assert.equal((await signIn('tess')).status, 200, 'nine failures leave the password usable');
      assert.equal((await signIn('tess', 'not the password')).status, 401, 'the tenth failure');
      const throttled = await signIn('tess');
      assert.deepEqual(
        { status: throttled.status, body: throttled.body },
        { status: 429, body: { message: 'Too many sign-in attempts: try again later' } },
      );
      const retryAfter = Number(throttled.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter}`);
      // Another username from the same address is not affected.
      assert.equal((await signIn('victor')).status, 200);
    });
  });

  describe('firmledger operator-user', () => {
    it('creates an account with the password from standard input, lists it without any hash, and refuses a short password', async () => {
      const created = await runCliWithInput(app, `${PASSWORD}\n`, 'operator-user', 'create', 'olga', '--role', 'viewer', '--json');
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(JSON.parse(created.stdout), {
        id: (JSON.parse(created.stdout) as { id: number }).id,
        username: 'olga',
        role: 'viewer',
        disabled: false,
        created_at: (JSON.parse(created.stdout) as { created_at: string }).created_at,
      });
      assert.equal((await signIn('olga')).status, 200);
      const listed = await runCli(app, 'operator-user', 'list');
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /olga\s+viewer\s+false/);
      assert.doesNotMatch(listed.stdout, /argon2/);
      const stored = await app.database.query<{ password_hash: string }>('SELECT password_hash FROM operator_user WHERE username = $1', [
        'olga',
      ]);
      assert.match(stored[0].password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      const short = await runCliWithInput(app, 'short\n', 'operator-user', 'create', 'pat', '--role', 'admin');
      assert.deepEqual(
        { code: short.code, stderr: lastLine(short.stderr) },
        { code: 1, stderr: 'firmledger: password must be 12 to 256 characters' },
      );
      const badRole = await runCliWithInput(app, `${PASSWORD}\n`, 'operator-user', 'create', 'pat', '--role', 'owner');
      assert.equal(badRole.code, 1);
      assert.match(badRole.stderr, /Allowed choices are admin, viewer/);
    });

    it('passwd sets a new password and ends the account’s sessions', async () => {
      const cookie = await session('olga');
      const changed = await runCliWithInput(app, 'a brand new password\n', 'operator-user', 'passwd', 'olga');
      assert.equal(changed.code, 0, changed.stderr);
      assert.deepEqual((await withCookie(cookie, 'GET', '/tenants')).body, ENDED);
      assert.deepEqual((await signIn('olga')).body, REFUSED);
      assert.equal((await signIn('olga', 'a brand new password')).status, 200);
      const unknown = await runCliWithInput(app, 'a brand new password\n', 'operator-user', 'passwd', 'nobody');
      assert.deepEqual(
        { code: unknown.code, stderr: lastLine(unknown.stderr) },
        { code: 1, stderr: 'firmledger: Operator user "nobody" not found' },
      );
    });
  });
});

/** Behind a TLS-terminating proxy (TRUST_PROXY and X-Forwarded-Proto: https), the cookie is Secure. */
describe('operator console sessions over TLS', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ TRUST_PROXY: 'true' });
    await app.server.app.get(OperatorUserService).create('alice', PASSWORD, 'admin');
  });
  after(() => app.close());

  it('marks the session cookie Secure when the request came over https', async () => {
    const answer = await request('POST', `${app.urls.operator}/session`, {
      body: { username: 'alice', password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.ok(setCookie(answer)!.attributes.includes('Secure'));
    const plain = await request('POST', `${app.urls.operator}/session`, { body: { username: 'alice', password: PASSWORD } });
    assert.ok(!setCookie(plain)!.attributes.includes('Secure'));
  });
});
