import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { get, request, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';

// README "Operations": /healthz and /readyz under every component's base URL, on its listener only.

const COMPONENTS = ['auth', 'vc', 'bc', 'operator'] as const;

function assertJson(answer: Answer, status: number, body: unknown, what: string): void {
  assert.equal(answer.status, status, `${what}: ${answer.status} ${answer.text}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `${what}: content-type`);
  assert.deepEqual(answer.body, body, what);
}

describe('health and readiness', () => {
  describe('separate listeners', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    for (const component of COMPONENTS) {
      it(`answers /healthz and /readyz on the ${component} listener`, async () => {
        const live = await get(`${app.urls[component]}/healthz`);
        assertJson(live, 200, { status: 'ok' }, `${component} healthz`);
        assert.equal(live.headers.get('cache-control'), 'no-store');
        assertJson(await get(`${app.urls[component]}/readyz`), 200, { status: 'ready' }, `${component} readyz`);
      });
    }

    it('answers HEAD /healthz without a body', async () => {
      const head = await request('HEAD', `${app.urls.vc}/healthz`);
      assert.equal(head.status, 200);
      assert.equal(head.bytes.length, 0);
    });

    it('answers neither under another path', async () => {
      for (const path of ['/health', '/healthz/x', '/api/healthz', '/auth/healthz']) {
        assertJson(await get(`${app.urls.vc}${path}`), 404, { message: 'Not Found' }, path);
      }
    });
  });

  describe('components with path prefixes, two of them on one listener', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(
        {},
        {
          AUTH_URL: 'http://127.0.0.1:{port0}/gate',
          VC_URL: 'http://127.0.0.1:{port0}/fleet',
          BC_URL: 'http://127.0.0.1:{port2}/chain',
          OPERATOR_URL: 'http://127.0.0.1:{port3}/ops',
        },
      );
    });
    after(() => app.close());

    it('answers under each base URL', async () => {
      for (const component of COMPONENTS) {
        assertJson(await get(`${app.urls[component]}/healthz`), 200, { status: 'ok' }, `${component} healthz`);
        assertJson(await get(`${app.urls[component]}/readyz`), 200, { status: 'ready' }, `${component} readyz`);
      }
    });

    it('does not answer at the listener root nor under another component’s prefix', async () => {
      const shared = new URL(app.urls.auth).origin;
      const chain = new URL(app.urls.bc).origin;
      for (const url of [`${shared}/healthz`, `${shared}/readyz`, `${shared}/chain/healthz`, `${chain}/healthz`, `${chain}/gate/readyz`]) {
        assertJson(await get(url), 404, { message: 'Not Found' }, url);
      }
    });
  });

  describe('two components on one listener without prefixes', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({}, { AUTH_URL: 'http://127.0.0.1:{port0}', VC_URL: 'http://127.0.0.1:{port0}' });
    });
    after(() => app.close());

    it('answers /healthz once for both', async () => {
      assertJson(await get(`${app.urls.auth}/healthz`), 200, { status: 'ok' }, 'shared healthz');
      assertJson(await get(`${app.urls.vc}/readyz`), 200, { status: 'ready' }, 'shared readyz');
    });
  });

  describe('when the database is closed', () => {
    let app: TestApp;
    let dataSource: DataSource;
    before(async () => {
      app = await startTestApp();
      dataSource = app.server.app.get(DataSource);
    });
    after(async () => {
      if (!dataSource.isInitialized) await dataSource.initialize();
      await app.close();
    });

    it('readyz is 503 "Database unreachable" on every listener while healthz stays 200, and ready again after', async () => {
      await dataSource.destroy();
      for (const component of COMPONENTS) {
        const ready = await get(`${app.urls[component]}/readyz`);
        assertJson(ready, 503, { message: 'Database unreachable' }, `${component} readyz`);
        assertJson(await get(`${app.urls[component]}/healthz`), 200, { status: 'ok' }, `${component} healthz`);
      }
      await dataSource.initialize();
      assertJson(await get(`${app.urls.vc}/readyz`), 200, { status: 'ready' }, 'readyz after reconnect');
    });
  });
});
