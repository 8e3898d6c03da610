import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorTokenService } from '#src/domain/access/operator-token.service.js';
import { request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCli } from '#test/support/operator.js';

const INVALID = { message: 'Operator token is not valid' };

/** Every route of the operator API of tenants, device keys, devices, groups and the ledger. */
const ROUTES: [method: string, path: string][] = [
  ['POST', '/tenants'],
  ['GET', '/tenants'],
  ['GET', '/tenants/acme'],
  ['POST', '/tenants/acme/customer-key/rotate'],
  ['POST', '/tenants/acme/device-keys'],
  ['GET', '/tenants/acme/device-keys'],
  ['POST', '/tenants/acme/device-keys/1/revoke'],
  ['GET', '/tenants/acme/devices'],
  ['GET', '/tenants/acme/devices/AC:67:B2:01:02:03'],
  ['POST', '/tenants/acme/groups'],
  ['GET', '/tenants/acme/groups'],
  ['GET', '/tenants/acme/groups/beta'],
  ['POST', '/tenants/acme/groups/beta/members'],
  ['POST', '/tenants/acme/groups/beta/members/remove'],
  ['GET', '/ledger/verify'],
  ['GET', '/ledger/entries'],
];

/** docs/decisions.md §2, §9: the operator API admits valid operator tokens only, and only on its own listener. */
describe('operator API: authentication and listeners (docs/decisions.md §2, §9)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let valid: string;
  let deviceToken: string;

  const operator = (method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> =>
    request(method, `${app.urls.operator}${path}`, {
      headers,
      ...(method === 'POST' ? { body: { name: 'x', macs: ['AC:67:B2:01:02:03'] } } : {}),
    });
  const assertRefused = (answer: Answer, what: string) => {
    assert.deepEqual({ status: answer.status, body: answer.body }, { status: 401, body: INVALID }, what);
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer\b/, what);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, what);
  };

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('acme');
    valid = await app.createOperatorToken('valid');
    deviceToken = await app.login(tenant);
  });
  after(() => app.close());

  describe('refuses with 401 and WWW-Authenticate', () => {
    it('every route without an Authorization header', async () => {
      for (const [method, path] of ROUTES) assertRefused(await operator(method, path), `${method} ${path}`);
    });

    it('every route with a token that is not an operator token', async () => {
      for (const [method, path] of ROUTES)
        assertRefused(await operator(method, path, { authorization: 'Bearer flo_unknown' }), `${method} ${path}`);
    });

    it('a valid token under another scheme, or without one', async () => {
      for (const authorization of [`Basic ${valid}`, `Token ${valid}`, valid, `Bearer`, `Bearer ${valid} extra`]) {
        assertRefused(await operator('GET', '/tenants', { authorization }), authorization.replace(valid, '<token>'));
      }
    });

    it('an unknown token of the right form, and one of a different case', async () => {
      assertRefused(await operator('GET', '/tenants', { authorization: `Bearer flo_${'A'.repeat(43)}` }), 'unknown');
      assertRefused(await operator('GET', '/tenants', { authorization: `Bearer ${valid.toUpperCase()}` }), 'upper case');
    });

    it('a device JWT, as bearer or in X-Access-Token', async () => {
      assertRefused(await operator('GET', '/tenants', { authorization: `Bearer ${deviceToken}` }), 'device JWT as bearer');
      assertRefused(await operator('GET', '/tenants', { 'x-access-token': deviceToken }), 'device JWT in X-Access-Token');
      // The same device token is valid on the device listener, so the refusal above is about the listener's rules.
      assert.equal((await request('GET', `${app.urls.vc}/api/device/`, { token: deviceToken })).status, 200);
    });

    it('a revoked token, from the next request on', async () => {
      const tokens = app.server.app.get(OperatorTokenService);
      const token = await app.createOperatorToken('soon revoked');
      assert.equal((await operator('GET', '/tenants', { authorization: `Bearer ${token}` })).status, 200);
      const id = (await tokens.list()).find((t) => t.name === 'soon revoked')!.id;
      await tokens.revoke(id);
      assertRefused(await operator('GET', '/tenants', { authorization: `Bearer ${token}` }), 'revoked');
    });
  });

  it('admits a valid token, also with the scheme in lower case', async () => {
    for (const authorization of [`Bearer ${valid}`, `bearer ${valid}`]) {
      const answer = await operator('GET', '/tenants/acme', { authorization });
      assert.equal(answer.status, 200, answer.text);
      assert.equal((answer.body as { name: string }).name, 'acme');
    }
  });

  describe('listeners (docs/decisions.md §2)', () => {
    it('answers operator routes 404 Not Found on the device listeners, even with a valid token', async () => {
      for (const base of [app.urls.auth, app.urls.vc, app.urls.bc]) {
        for (const [method, path] of ROUTES) {
          const answer = await request(method, `${base}${path}`, { bearer: valid, ...(method === 'POST' ? { body: { name: 'x' } } : {}) });
          assert.deepEqual(
            { status: answer.status, body: answer.body },
            { status: 404, body: { message: 'Not Found' } },
            `${method} ${base}${path}`,
          );
        }
      }
      // Nothing was created through them.
      const tenants = await request('GET', `${app.urls.operator}/tenants`, { bearer: valid });
      assert.deepEqual(
        (tenants.body as { items: { name: string }[] }).items.map((t) => t.name),
        ['acme'],
      );
    });

    it('answers device routes 404 Not Found on the operator listener', async () => {
      const mac = 'AC:67:B2:01:02:03';
      for (const [method, path, body] of [
        ['POST', '/auth/login', { device_key: tenant.deviceKey, timestamp: 1, device_signature: '0'.repeat(64) }],
        ['GET', '/api/device/', undefined],
        ['POST', '/api/device/register', { mac, firmware_version: '1.0' }],
        ['GET', `/api/device/${mac}`, undefined],
        ['GET', '/api/report/json', undefined],
        ['POST', '/api/device/next/rollout', { mac, firmware_version: '1.0' }],
        ['GET', `/device/${mac}`, undefined],
        ['GET', '/firmware/1', undefined],
      ] as const) {
        const answer = await request(method, `${app.urls.operator}${path}`, { token: deviceToken, bearer: valid, body });
        assert.deepEqual(
          { status: answer.status, body: answer.body },
          { status: 404, body: { message: 'Not Found' } },
          `${method} ${path}`,
        );
      }
    });
  });

  describe('firmledger operator-token create | list | revoke', () => {
    let created: { id: number; name: string; hint: string; revoked: boolean; token: string };

    it('create prints a token once, and it works against the API', async () => {
      const outcome = await runCli(app, 'operator-token', 'create', '--name', 'ci-pipeline', '--json');
      assert.equal(outcome.code, 0, outcome.stderr);
      created = JSON.parse(outcome.stdout) as typeof created;
      assert.equal(created.name, 'ci-pipeline');
      assert.equal(created.revoked, false);
      assert.match(created.token, /^flo_[A-Za-z0-9_-]{43}$/);
      assert.ok(created.token.startsWith(created.hint));
      const answer = await request('GET', `${app.urls.operator}/tenants`, { bearer: created.token });
      assert.equal(answer.status, 200, answer.text);
    });

    it('create in human form shows the token and how to send it', async () => {
      const outcome = await runCli(app, 'operator-token', 'create', '--name', 'human');
      assert.equal(outcome.code, 0, outcome.stderr);
      assert.match(outcome.stdout, /: flo_[A-Za-z0-9_-]{43}\n/);
      assert.match(outcome.stdout, /Authorization: Bearer/);
    });

    it('list shows every token by hint, never a token itself', async () => {
      const asJson = await runCli(app, 'operator-token', 'list', '--json');
      const human = await runCli(app, 'operator-token', 'list');
      assert.equal(asJson.code, 0, asJson.stderr);
      assert.equal(human.code, 0, human.stderr);
      const listed = JSON.parse(asJson.stdout) as {
        id: number;
        name: string;
        hint: string;
        role: string;
        revoked: boolean;
        created_at: string;
      }[];
      assert.deepEqual(
        listed.map((t) => t.name),
        ['valid', 'soon revoked', 'ci-pipeline', 'human'],
      );
      assert.deepEqual(
        listed.find((t) => t.id === created.id),
        {
          id: created.id,
          name: 'ci-pipeline',
          hint: created.hint,
          role: 'admin',
          revoked: false,
          created_at: listed.find((t) => t.id === created.id)!.created_at,
        },
      );
      for (const output of [asJson.stdout, human.stdout]) {
        assert.ok(!output.includes(created.token) && !output.includes(valid), output);
        assert.doesNotMatch(output, /flo_[A-Za-z0-9_-]{20,}/);
      }
      assert.match(human.stdout, /ci-pipeline/);
    });

    it('revoke stops the token at once, and list shows it revoked', async () => {
      const outcome = await runCli(app, 'operator-token', 'revoke', String(created.id), '--json');
      assert.equal(outcome.code, 0, outcome.stderr);
      assert.equal((JSON.parse(outcome.stdout) as { revoked: boolean }).revoked, true);
      const refused = await request('GET', `${app.urls.operator}/tenants`, { bearer: created.token });
      assertRefused(refused, 'revoked by the CLI');
      const listed = JSON.parse((await runCli(app, 'operator-token', 'list', '--json')).stdout) as {
        id: number;
        revoked: boolean;
      }[];
      assert.equal(listed.find((t) => t.id === created.id)?.revoked, true);
      // Other tokens keep working.
      assert.equal((await request('GET', `${app.urls.operator}/tenants`, { bearer: valid })).status, 200);
    });

    it('revoke exits 1 naming an unknown id, and refuses an id that is not a number', async () => {
      const unknown = await runCli(app, 'operator-token', 'revoke', '999');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /Operator token 999 not found/);
      const bad = await runCli(app, 'operator-token', 'revoke', 'abc');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /whole number/);
    });
  });
});

/** Failed operator authentication is limited per client address, as logins are. */
describe('operator API: failed authentication is throttled per address', () => {
  let app: TestApp;
  let valid: string;
  const LIMIT = 3;

  /** `GET /tenants` from the client address `from` (the proxy's `X-Forwarded-For`). */
  const tenants = (from: string, bearer?: string): Promise<Answer> =>
    request('GET', `${app.urls.operator}/tenants`, { bearer, headers: { 'x-forwarded-for': from } });

  before(async () => {
    app = await startTestApp({ LOGIN_RATE_LIMIT: String(LIMIT), LOGIN_RATE_WINDOW_SECONDS: '60', TRUST_PROXY: 'true' });
    valid = await app.createOperatorToken('throttle');
  });
  after(() => app.close());

  it('never counts valid requests', async () => {
    for (let i = 0; i < LIMIT * 5; i++) assert.equal((await tenants('10.0.0.1', valid)).status, 200);
  });

  it('answers its failures 429 with Retry-After once an address failed too often, until the window ends; a valid token still passes', async () => {
    for (let i = 0; i < LIMIT; i++) {
      const refused = await tenants('10.0.0.2', `flo_guess${i}`);
      assert.deepEqual([refused.status, refused.body], [401, INVALID]);
    }
    const throttled = await tenants('10.0.0.2', 'flo_guess-over');
    assert.deepEqual([throttled.status, throttled.body], [429, { message: 'Too many requests in this time frame' }]);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await tenants('10.0.0.2')).status, 429, 'no token at all is a failure too');
    // The operator behind the same address is not locked out (docs/decisions.md §4).
    assert.equal((await tenants('10.0.0.2', valid)).status, 200);
    assert.equal((await tenants('10.0.0.2', 'flo_guess-after')).status, 429);

    // Other addresses are not affected.
    assert.equal((await tenants('10.0.0.3', valid)).status, 200);
    assert.equal((await tenants('10.0.0.3', 'flo_other')).status, 401);

    app.clock.advance(61);
    assert.equal((await tenants('10.0.0.2', 'flo_again')).status, 401);
  });
});
