import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get, request, startTestApp, type TestApp } from '#test/support/harness.js';
import { deviceLogin, operatorClient, runCli, type OperatorClient } from '#test/support/operator.js';
import type { Page } from '#src/operator/dto/paging.dto.js';
import type { TenantResponse, TenantWithKeyResponse } from '#src/operator/dto/tenant.dto.js';
import type { DeviceKeyResponse } from '#src/operator/dto/device-key.dto.js';

type Tenant = TenantResponse;
type TenantWithKey = TenantWithKeyResponse;
type DeviceKey = DeviceKeyResponse;

/** docs/decisions.md §5, §9: tenants, their customer key (shown on create and rotate only) and device keys, over the operator API. */
describe('operator API: tenants and device keys (docs/decisions.md §5, §9)', () => {
  let app: TestApp;
  let op: OperatorClient;
  const keysSeen: string[] = [];

  /** Creates a tenant over the API and remembers its key, so later answers can be checked for leaks. */
  async function createTenant(name: string): Promise<TenantWithKey> {
    const answer = await op.post('/tenants', { name });
    assert.equal(answer.status, 201, answer.text);
    const tenant = answer.body as TenantWithKey;
    keysSeen.push(tenant.customer_key);
    return tenant;
  }

  async function createKey(tenant: string | number, deviceType = 'ESP32'): Promise<DeviceKey> {
    const answer = await op.post(`/tenants/${encodeURIComponent(tenant)}/device-keys`, { device_type: deviceType });
    assert.equal(answer.status, 201, answer.text);
    return answer.body as DeviceKey;
  }

  const assertNoCustomerKey = (text: string) => {
    assert.doesNotMatch(text, /customer/i);
    for (const key of keysSeen) assert.ok(!text.includes(key), `customer key leaked: ${text}`);
  };

  before(async () => {
    app = await startTestApp();
    op = operatorClient(app, await app.createOperatorToken());
  });
  after(() => app.close());

  describe('POST /tenants', () => {
    it('creates a tenant: 201 {id, name, customer_key, created_at}, the key a usable secret', async () => {
      const answer = await op.post('/tenants', { name: 'acme' });
      assert.equal(answer.status, 201, answer.text);
      const tenant = answer.body as TenantWithKey;
      keysSeen.push(tenant.customer_key);
      assert.deepEqual(Object.keys(tenant), [
        'id',
        'name',
        'created_at',
        'ddi_polling_sleep',
        'artifact_verify_key_fingerprint',
        'customer_key',
      ]);
      assert.equal(tenant.name, 'acme');
      assert.equal(typeof tenant.id, 'number');
      assert.equal(tenant.created_at, new Date(app.clock.now()).toISOString());
      assert.ok(tenant.customer_key.length >= 24, tenant.customer_key);
      // The key is the one devices sign with: a device of the tenant logs in with it.
      const key = await createKey('acme');
      assert.equal((await deviceLogin(app, tenant.customer_key, key.key)).status, 200);
    });

    it('gives every tenant its own random customer key', async () => {
      const a = await createTenant('keys-a');
      const b = await createTenant('keys-b');
      assert.notEqual(a.customer_key, b.customer_key);
    });

    it('answers 409 for a name that is taken', async () => {
      const answer = await op.post('/tenants', { name: 'acme' });
      assert.deepEqual({ status: answer.status, body: answer.body }, { status: 409, body: { message: 'Tenant "acme" exists' } });
    });

    for (const [label, body, message] of [
      ['a missing name', {}, /name/],
      ['a name that is not a string', { name: 42 }, /name must be a string/],
      ['an empty name', { name: '' }, /name must be 1 to 128/],
      ['a name of 129 characters', { name: 'x'.repeat(129) }, /name must be 1 to 128/],
      ['a name of only digits (it would read as an id)', { name: '12345' }, /not only digits/],
      ['a name with a control character', { name: 'bad\u0007name' }, /control characters/],
    ] as const) {
      it(`answers 400 naming the field for ${label}`, async () => {
        const answer = await op.post('/tenants', body);
        assert.equal(answer.status, 400, answer.text);
        assert.match((answer.body as { message: string }).message, message);
        assert.equal((answer.body as { field?: string }).field, 'name');
      });
    }

    it('answers 400 for a body that is not JSON', async () => {
      const answer = await op.post('/tenants', undefined);
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, { message: 'Body is required' });
    });
  });

  describe('GET /tenants', () => {
    before(async () => {
      for (const name of ['page-1', 'page-2', 'page-3', 'page-4']) await createTenant(name);
    });

    it('lists tenants by id with paging meta, never a customer key', async () => {
      const answer = await op.get('/tenants');
      assert.equal(answer.status, 200);
      const page = answer.body as Page<Tenant>;
      assert.deepEqual(Object.keys(page), ['items', 'page', 'per_page', 'total']);
      assert.equal(page.page, 1);
      assert.equal(page.per_page, 50);
      assert.equal(page.total, page.items.length);
      assert.deepEqual(
        page.items.map((t) => t.name),
        ['acme', 'keys-a', 'keys-b', 'page-1', 'page-2', 'page-3', 'page-4'],
      );
      assert.deepEqual(Object.keys(page.items[0]), ['id', 'name', 'created_at', 'ddi_polling_sleep', 'artifact_verify_key_fingerprint']);
      assertNoCustomerKey(answer.text);
    });

    it('answers page 2 of per_page 3 with the total of all pages', async () => {
      const page = (await op.get('/tenants?page=2&per_page=3')).body as Page<Tenant>;
      assert.deepEqual(
        page.items.map((t) => t.name),
        ['page-1', 'page-2', 'page-3'],
      );
      assert.deepEqual({ page: page.page, per_page: page.per_page, total: page.total }, { page: 2, per_page: 3, total: 7 });
    });

    it('answers an empty page past the end, still with the total', async () => {
      const page = (await op.get('/tenants?page=9&per_page=3')).body as Page<Tenant>;
      assert.deepEqual(page, { items: [], page: 9, per_page: 3, total: 7 });
    });

    it('accepts per_page 1 and 500', async () => {
      assert.equal(((await op.get('/tenants?per_page=1')).body as Page<Tenant>).items.length, 1);
      assert.equal(((await op.get('/tenants?per_page=500')).body as Page<Tenant>).items.length, 7);
    });

    for (const [query, message] of [
      ['per_page=0', 'per_page must be at least 1'],
      ['per_page=501', 'per_page must be at most 500'],
      ['per_page=ten', 'per_page must be a whole number'],
      ['page=0', 'page must be at least 1'],
      ['page=1.5', 'page must be a whole number'],
      ['page=abc', 'page must be a whole number'],
      ['page=-1', 'page must be at least 1'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query}`, async () => {
        const answer = await op.get(`/tenants?${query}`);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 400, body: { message, field: query.split('=')[0] } });
      });
    }
  });

  describe('GET /tenants/:tenant', () => {
    it('finds a tenant by id and by name, without its customer key', async () => {
      const created = await createTenant('lookup me');
      const byId = await op.get(`/tenants/${created.id}`);
      const byName = await op.get(`/tenants/${encodeURIComponent('lookup me')}`);
      assert.equal(byId.status, 200);
      assert.deepEqual(byId.body, {
        id: created.id,
        name: 'lookup me',
        created_at: created.created_at,
        ddi_polling_sleep: '00:05:00',
        artifact_verify_key_fingerprint: null,
      });
      assert.deepEqual(byName.body, byId.body);
      assertNoCustomerKey(byId.text);
    });

    it('answers 404 naming an unknown tenant, by name or id', async () => {
      for (const ref of ['nosuch', '99999']) {
        const answer = await op.get(`/tenants/${ref}`);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 404, body: { message: `Tenant "${ref}" not found` } });
      }
    });
  });

  describe('POST /tenants/:tenant/customer-key/rotate', () => {
    it('answers 200 with a new key; the old key stops working for logins at once, the new one works', async () => {
      const tenant = await createTenant('rotating');
      const key = await createKey('rotating');
      const before = await deviceLogin(app, tenant.customer_key, key.key);
      assert.equal(before.status, 200);
      const token = (before.body as { token: string }).token;

      const answer = await op.post('/tenants/rotating/customer-key/rotate');
      assert.equal(answer.status, 200, answer.text);
      const rotated = answer.body as TenantWithKey;
      keysSeen.push(rotated.customer_key);
      assert.deepEqual(
        { ...rotated, customer_key: undefined },
        {
          id: tenant.id,
          name: 'rotating',
          created_at: tenant.created_at,
          ddi_polling_sleep: '00:05:00',
          artifact_verify_key_fingerprint: null,
          customer_key: undefined,
        },
      );
      assert.notEqual(rotated.customer_key, tenant.customer_key);

      const old = await deviceLogin(app, tenant.customer_key, key.key);
      assert.deepEqual({ status: old.status, body: old.body }, { status: 401, body: { message: 'Invalid credentials' } });
      assert.equal((await deviceLogin(app, rotated.customer_key, key.key)).status, 200);
      // A token issued before the rotation stays valid until it expires (documented choice).
      assert.equal((await get(`${app.urls.vc}/api/device/`, token)).status, 200);
    });

    it('never shows the new key again: get and list leave it out', async () => {
      assertNoCustomerKey((await op.get('/tenants/rotating')).text);
      assertNoCustomerKey((await op.get('/tenants?per_page=500')).text);
    });

    it('answers 404 for an unknown tenant', async () => {
      const answer = await op.post('/tenants/nosuch/customer-key/rotate');
      assert.deepEqual({ status: answer.status, body: answer.body }, { status: 404, body: { message: 'Tenant "nosuch" not found' } });
    });
  });

  describe('device keys', () => {
    let tenant: TenantWithKey;

    before(async () => {
      tenant = await createTenant('keyed');
    });

    it('POST creates a key of a device type: 201 {id, key, device_type, single_device, auto_accept, ddi_gateway, revoked, created_at}', async () => {
      const answer = await op.post(`/tenants/${tenant.id}/device-keys`, { device_type: 'ESP8266' });
      assert.equal(answer.status, 201, answer.text);
      const key = answer.body as DeviceKey;
      assert.deepEqual(Object.keys(key), [
        'id',
        'key',
        'device_type',
        'single_device',
        'auto_accept',
        'ddi_gateway',
        'revoked',
        'created_at',
      ]);
      assert.equal(key.device_type, 'ESP8266');
      assert.equal(key.single_device, false, 'shared by default');
      assert.equal(key.ddi_gateway, false, 'no DDI gateway token unless asked');
      assert.equal(key.revoked, false);
      assert.match(key.key, /^[A-Za-z0-9]{22}$/, 'at most 31 characters (the ESP8266 signing buffer)');
      assert.notEqual(key.key, tenant.customer_key);
    });

    it('gives devices logging in with the key its device type as dType', async () => {
      const key = await createKey('keyed', 'Pycom');
      const token = ((await deviceLogin(app, tenant.customer_key, key.key)).body as { token: string }).token;
      const mac = 'AC:67:B2:77:00:01';
      assert.equal(
        (await request('POST', `${app.urls.vc}/api/device/register`, { token, body: { mac, firmware_version: '1.0' } })).status,
        200,
      );
      assert.deepEqual((await get(`${app.urls.bc}/device/${mac}`, token)).body, { mac, fwId: '', dType: 'Pycom' });
    });

    for (const [label, body, message, field] of [
      [
        'a single_device that is not a boolean',
        { device_type: 'ESP32', single_device: 'yes' },
        /single_device must be true or false/,
        'single_device',
      ],
      ['a ddi_gateway that is not a boolean', { device_type: 'ESP32', ddi_gateway: 1 }, /ddi_gateway must be true or false/, 'ddi_gateway'],
      ['a missing device_type', {}, /device_type must be a string/, 'device_type'],
      ['an empty device_type', { device_type: '' }, /device_type must be 1 to 64/, 'device_type'],
      ['a device_type of 65 characters', { device_type: 'E'.repeat(65) }, /device_type must be 1 to 64/, 'device_type'],
      ['a device_type with a control character', { device_type: 'ESP\n32' }, /device_type must be 1 to 64 printable/, 'device_type'],
    ] as const) {
      it(`answers 400 naming the field for ${label}`, async () => {
        const answer = await op.post(`/tenants/${tenant.id}/device-keys`, body);
        assert.equal(answer.status, 400, answer.text);
        assert.match((answer.body as { message: string }).message, message);
        assert.equal((answer.body as { field?: string }).field, field);
      });
    }

    it('answers 404 for an unknown tenant', async () => {
      const answer = await op.post('/tenants/nosuch/device-keys', { device_type: 'ESP32' });
      assert.deepEqual({ status: answer.status, body: answer.body }, { status: 404, body: { message: 'Tenant "nosuch" not found' } });
    });

    it("GET lists the tenant's keys by id with paging, and only the tenant's", async () => {
      const other = await createTenant('keyed-other');
      const foreign = await createKey(other.id);
      for (let i = 0; i < 3; i++) await createKey('keyed', `T${i}`);
      const all = (await op.get('/tenants/keyed/device-keys')).body as Page<DeviceKey>;
      assert.equal(all.total, 5);
      assert.deepEqual(
        all.items.map((k) => k.device_type),
        ['ESP8266', 'Pycom', 'T0', 'T1', 'T2'],
      );
      assert.ok(!all.items.some((k) => k.id === foreign.id));
      const second = (await op.get('/tenants/keyed/device-keys?page=2&per_page=2')).body as Page<DeviceKey>;
      assert.deepEqual(
        second.items.map((k) => k.device_type),
        ['T0', 'T1'],
      );
      assert.deepEqual({ page: second.page, per_page: second.per_page, total: second.total }, { page: 2, per_page: 2, total: 5 });
      assert.equal((await op.get('/tenants/keyed/device-keys?per_page=501')).status, 400);
      assert.equal((await op.get('/tenants/nosuch/device-keys')).status, 404);
    });

    describe('revoke', () => {
      it('cuts off the tokens of a revoked key at once, and refuses new logins with it (docs/decisions.md §3, §4)', async () => {
        const key = await createKey('keyed');
        const token = ((await deviceLogin(app, tenant.customer_key, key.key)).body as { token: string }).token;
        assert.equal((await get(`${app.urls.vc}/api/device/`, token)).status, 200);

        const answer = await op.post(`/tenants/keyed/device-keys/${key.id}/revoke`);
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual(answer.body, { ...key, revoked: true });

        const refused = await get(`${app.urls.vc}/api/device/`, token);
        assert.deepEqual({ status: refused.status, body: refused.body }, { status: 401, body: { message: 'JWT is not valid' } });
        const login = await deviceLogin(app, tenant.customer_key, key.key);
        assert.deepEqual({ status: login.status, body: login.body }, { status: 401, body: { message: 'Invalid credentials' } });
        const listed = ((await op.get('/tenants/keyed/device-keys?per_page=500')).body as Page<DeviceKey>).items.find(
          (k) => k.id === key.id,
        );
        assert.equal(listed?.revoked, true);
      });

      it('answers 200 with the same key when revoked again', async () => {
        const key = await createKey('keyed');
        await op.post(`/tenants/keyed/device-keys/${key.id}/revoke`);
        const again = await op.post(`/tenants/keyed/device-keys/${key.id}/revoke`);
        assert.equal(again.status, 200);
        assert.deepEqual(again.body, { ...key, revoked: true });
      });

      it("answers 404 for another tenant's key, and leaves it working", async () => {
        const other = await createTenant('revoke-other');
        const foreign = await createKey(other.id);
        const answer = await op.post(`/tenants/keyed/device-keys/${foreign.id}/revoke`);
        assert.deepEqual(
          { status: answer.status, body: answer.body },
          { status: 404, body: { message: `Device key "${foreign.id}" not found` } },
        );
        assert.equal((await deviceLogin(app, other.customer_key, foreign.key)).status, 200);
      });

      it('answers 404 for an unknown key id and 400 for an id that is not a number', async () => {
        assert.deepEqual((await op.post('/tenants/keyed/device-keys/987654/revoke')).body, { message: 'Device key "987654" not found' });
        const bad = await op.post('/tenants/keyed/device-keys/abc/revoke');
        assert.deepEqual(
          { status: bad.status, body: bad.body },
          { status: 400, body: { message: 'id must be a whole number', field: 'id' } },
        );
      });
    });
  });

  describe('firmledger tenant rotate-key (the same service as the API)', () => {
    it('prints a new key once; the API then sees logins with the old key refused and the new one accepted', async () => {
      const tenant = await createTenant('cli-rotating');
      const key = await createKey('cli-rotating');
      const outcome = await runCli(app, 'tenant', 'rotate-key', 'cli-rotating', '--json');
      assert.equal(outcome.code, 0, outcome.stderr);
      const rotated = JSON.parse(outcome.stdout) as { id: number; name: string; customer_key: string };
      keysSeen.push(rotated.customer_key);
      assert.equal(rotated.id, tenant.id);
      assert.notEqual(rotated.customer_key, tenant.customer_key);
      assert.equal((await deviceLogin(app, tenant.customer_key, key.key)).status, 401);
      assert.equal((await deviceLogin(app, rotated.customer_key, key.key)).status, 200);
      assertNoCustomerKey((await op.get('/tenants/cli-rotating')).text);
    });

    it('prints the new key in its human form too, and exits 1 naming an unknown tenant', async () => {
      const human = await runCli(app, 'tenant', 'rotate-key', 'cli-rotating');
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /new customer key: \S{24,}/);
      const unknown = await runCli(app, 'tenant', 'rotate-key', 'nosuch');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /Tenant "nosuch" not found/);
    });
  });
});
