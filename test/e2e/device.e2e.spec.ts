import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get, post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

/**
 * docs/decisions.md §6 device rules (and §1, §3 where they shape device answers), spoken over HTTP the
 * way field devices speak: register, get one, list, delete.
 */
describe('device endpoints (docs/decisions.md §6)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let macCounter = 0;

  /** A fresh canonical EUI-48 for each test, so tests do not depend on each other. */
  const freshMac = (): string =>
    `02:DE:00:00:${((++macCounter >> 8) & 0xff).toString(16).padStart(2, '0')}:${(macCounter & 0xff).toString(16).padStart(2, '0')}`.toUpperCase();

  const register = (body: unknown, as = token): Promise<Answer> => post(`${app.urls.vc}/api/device/register`, body, as);
  const getDevice = (mac: string, as = token): Promise<Answer> => get(`${app.urls.vc}/api/device/${mac}`, as);
  const list = (as = token): Promise<Answer> => get(`${app.urls.vc}/api/device/`, as);
  const remove = (mac: unknown, as = token): Promise<Answer> =>
    request('DELETE', `${app.urls.vc}/api/device/`, { token: as, body: { mac } });

  /** Asserts a docs/decisions.md §3 error: status, JSON content type, a message object only. */
  const assertError = (answer: Answer, status: number, message?: string | RegExp): void => {
    assert.equal(answer.status, status, `expected ${status}, got ${answer.status} ${answer.text}`);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(answer.body as object), ['message']);
    const text = (answer.body as { message: unknown }).message;
    assert.equal(typeof text, 'string');
    if (typeof message === 'string') assert.equal(text, message);
    else if (message) assert.match(text as string, message);
  };

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant();
    token = await app.login(tenant);
  });
  after(() => app.close());

  describe('register', () => {
    it('answers 200 Device inserted! for a new mac and stores what was sent', async () => {
      const mac = freshMac();
      const answer = await register({ mac, firmware_version: '1.0.0', name: 'boiler' });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
      const stored = await getDevice(mac);
      assert.equal(stored.status, 200);
      assert.deepEqual(stored.body, { mac, name: 'boiler', 'firmware-version': '1.0.0' });
    });

    it('answers 200 Device exists! for a known mac and leaves the stored record unchanged', async () => {
      const mac = freshMac();
      assert.deepEqual((await register({ mac, firmware_version: '1.0.0', name: 'original' })).body, { message: 'Device inserted!' });
      const again = await register({ mac, firmware_version: '9.9.9', name: 'overwritten?' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { message: 'Device exists!' });
      const stored = await getDevice(mac);
      assert.deepEqual(stored.body, { mac, name: 'original', 'firmware-version': '1.0.0' });
    });

    it('answers Device exists! when the same mac comes in another notation', async () => {
      assert.deepEqual((await register({ mac: 'ac:67:b2:aa:bb:01', firmware_version: '1.0' })).body, { message: 'Device inserted!' });
      for (const notation of ['AC-67-B2-AA-BB-01', 'ac67.b2aa.bb01', 'AC67B2AABB01', 'Ac:67:B2:aA:Bb:01']) {
        const answer = await register({ mac: notation, firmware_version: '2.0' });
        assert.equal(answer.status, 200, notation);
        assert.deepEqual(answer.body, { message: 'Device exists!' }, notation);
      }
      const all = (await list()).body as { mac: string }[];
      assert.equal(all.filter((d) => d.mac === 'AC:67:B2:AA:BB:01').length, 1);
    });

    it('defaults a missing name to the mac (canonical form)', async () => {
      const answer = await register({ mac: 'ac-67-b2-aa-bb-02', firmware_version: '1.0' });
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
      const stored = await getDevice('AC:67:B2:AA:BB:02');
      assert.deepEqual(stored.body, { mac: 'AC:67:B2:AA:BB:02', name: 'AC:67:B2:AA:BB:02', 'firmware-version': '1.0' });
    });

    it('accepts every mac notation and stores the canonical uppercase colon form', async () => {
      const cases: [string, string][] = [
        ['ac:67:b2:01:02:03', 'AC:67:B2:01:02:03'],
        ['AC-67-B2-01-02-04', 'AC:67:B2:01:02:04'],
        ['ac67.b201.0205', 'AC:67:B2:01:02:05'],
        ['AC67B2010206', 'AC:67:B2:01:02:06'],
        ['ac67b2010207', 'AC:67:B2:01:02:07'],
        ['02:00:5e:10:00:00:00:01', '02:00:5E:10:00:00:00:01'],
        ['02-00-5E-10-00-00-00-02', '02:00:5E:10:00:00:00:02'],
        ['0200.5e10.0000.0003', '02:00:5E:10:00:00:00:03'],
        ['02005E1000000004', '02:00:5E:10:00:00:00:04'],
      ];
      for (const [sent, canonical] of cases) {
        const answer = await register({ mac: sent, firmware_version: '1.0', name: `n-${sent}` });
        assert.equal(answer.status, 200, `${sent}: ${answer.text}`);
        assert.deepEqual(answer.body, { message: 'Device inserted!' }, sent);
        const stored = await getDevice(canonical);
        assert.equal(stored.status, 200, `${sent} not found as ${canonical}`);
        assert.deepEqual(stored.body, { mac: canonical, name: `n-${sent}`, 'firmware-version': '1.0' });
      }
      const macs = ((await list()).body as { mac: string }[]).map((d) => d.mac);
      for (const [, canonical] of cases) assert.ok(macs.includes(canonical), `${canonical} missing from list`);
      for (const [sent] of cases)
        if (sent !== sent.toUpperCase() || /[-.]/.test(sent)) assert.ok(!macs.includes(sent), `${sent} stored verbatim`);
    });

    it('rejects invalid macs with 400 naming mac, and stores nothing', async () => {
      const before = ((await list()).body as unknown[]).length;
      const invalid: unknown[] = [
        'ac:67:b2:01:02', // 5 bytes
        'ac:67:b2:01:02:03:04', // 7 bytes
        'AC67B20102', // 5 bytes bare
        'AC67B201020304', // 7 bytes bare
        'zz:67:b2:01:02:03', // not hex
        'ac:67-b2:01:02:03', // mixed separators
        'ac-67-b2:01:02:03',
        'ac67.b201-0203',
        'ac 67 b2 01 02 03', // spaces
        'ac:67: b2:01:02:03',
        'ac:67:b2:01:02:3', // short group
        'ac6.7b2.0102.03',
        '',
        12345678,
        null,
        ['ac:67:b2:01:02:03'],
      ];
      for (const mac of invalid) {
        const answer = await register({ mac, firmware_version: '1.0', name: 'bad' });
        assertError(answer, 400, /\bmac\b/);
      }
      const missing = await register({ firmware_version: '1.0', name: 'bad' });
      assertError(missing, 400, /\bmac\b/);
      assert.equal(((await list()).body as unknown[]).length, before);
    });

    it('rejects a mac wrapped in spaces with 400 naming mac (only the listed notations are accepted)', async () => {
      for (const mac of [' ac:67:b2:01:02:09', 'ac:67:b2:01:02:09 ', '\tAC67B2010209\n']) {
        assertError(await register({ mac, firmware_version: '1.0' }), 400, /\bmac\b/);
      }
      assertError(await getDevice('AC:67:B2:01:02:09'), 404, "Device does't exist!");
    });

    it('bounds firmware_version to 1..64 characters, naming the field', async () => {
      assertError(await register({ mac: freshMac(), firmware_version: '' }), 400, /firmware_version/);
      assertError(await register({ mac: freshMac(), firmware_version: 'v'.repeat(65) }), 400, /firmware_version/);
      assertError(await register({ mac: freshMac() }), 400, /firmware_version/);
      assertError(await register({ mac: freshMac(), firmware_version: 1.2 }), 400, /firmware_version/);
      assertError(await register({ mac: freshMac(), firmware_version: '1.0\n' }), 400, /firmware_version/);
      assertError(await register({ mac: freshMac(), firmware_version: '1.\u00000' }), 400, /firmware_version/);
      const mac = freshMac();
      assert.deepEqual((await register({ mac, firmware_version: 'v'.repeat(64) })).body, { message: 'Device inserted!' });
      assert.equal(((await getDevice(mac)).body as Record<string, string>)['firmware-version'], 'v'.repeat(64));
      const one = freshMac();
      assert.deepEqual((await register({ mac: one, firmware_version: '1' })).body, { message: 'Device inserted!' });
    });

    it('bounds name to 1..128 characters, naming the field', async () => {
      assertError(await register({ mac: freshMac(), firmware_version: '1.0', name: 'n'.repeat(129) }), 400, /\bname\b/);
      assertError(await register({ mac: freshMac(), firmware_version: '1.0', name: 42 }), 400, /\bname\b/);
      assertError(await register({ mac: freshMac(), firmware_version: '1.0', name: '' }), 400, /\bname\b/);
      const mac = freshMac();
      const name = 'ñ'.repeat(128);
      assert.deepEqual((await register({ mac, firmware_version: '1.0', name })).body, { message: 'Device inserted!' });
      assert.equal(((await getDevice(mac)).body as Record<string, string>).name, name);
    });

    it('ignores extra body fields sent by old clients', async () => {
      const mac = freshMac();
      const answer = await register({
        mac,
        firmware_version: '1.0',
        name: 'old-sdk',
        customer_key: 'ck',
        device_key: 'dk',
        v_cred: 'x',
        extra: { nested: true },
      });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
      const stored = await getDevice(mac);
      assert.deepEqual(Object.keys(stored.body as object), ['mac', 'name', 'firmware-version']);
      assert.deepEqual(stored.body, { mac, name: 'old-sdk', 'firmware-version': '1.0' });
    });

    it('answers 401 JWT is not valid without or with a bad token, and registers nothing', async () => {
      const mac = freshMac();
      assertError(await register({ mac, firmware_version: '1.0' }, ''), 401, 'JWT is not valid');
      assertError(await register({ mac, firmware_version: '1.0' }, 'not.a.jwt'), 401, 'JWT is not valid');
      assertError(await getDevice(mac), 404, "Device does't exist!");
    });

    it('answers 20 concurrent registrations of one mac with exactly one Device inserted!', async () => {
      const mac = freshMac();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          register({ mac: i % 2 ? mac.toLowerCase() : mac.replace(/:/g, '-'), firmware_version: `1.${i}`, name: `racer-${i}` }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      const messages = answers.map((a) => (a.body as { message: string }).message);
      assert.equal(messages.filter((m) => m === 'Device inserted!').length, 1, messages.join(', '));
      assert.equal(messages.filter((m) => m === 'Device exists!').length, 19, messages.join(', '));
      const winner = answers.findIndex((a) => (a.body as { message: string }).message === 'Device inserted!');
      assert.deepEqual((await getDevice(mac)).body, { mac, name: `racer-${winner}`, 'firmware-version': `1.${winner}` });
      assert.equal(((await list()).body as { mac: string }[]).filter((d) => d.mac === mac).length, 1);
    });
  });

  describe('get one', () => {
    it('finds a device by any notation in the path; keys are exactly mac, name, firmware-version', async () => {
      assert.deepEqual((await register({ mac: 'AC:67:B2:CC:DD:01', firmware_version: '3.1.4', name: 'probe' })).body, {
        message: 'Device inserted!',
      });
      for (const notation of ['ac-67-b2-cc-dd-01', 'AC:67:B2:CC:DD:01', 'ac:67:b2:cc:dd:01', 'ac67.b2cc.dd01', 'AC67B2CCDD01']) {
        const answer = await getDevice(notation);
        assert.equal(answer.status, 200, notation);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(Object.keys(answer.body as object), ['mac', 'name', 'firmware-version'], notation);
        assert.deepEqual(answer.body, { mac: 'AC:67:B2:CC:DD:01', name: 'probe', 'firmware-version': '3.1.4' });
      }
    });

    it("answers 404 Device does't exist! for an absent device", async () => {
      assertError(await getDevice(freshMac()), 404, "Device does't exist!");
      assertError(await getDevice('ac-67-b2-ff-ff-fe'), 404, "Device does't exist!");
    });

    it('answers 400 naming mac for a path that is not a hardware address', async () => {
      assertError(await getDevice('ac-67-b2-01-02'), 400, /\bmac\b/);
      assertError(await getDevice('not-a-mac'), 400, /\bmac\b/);
    });
  });

  describe('list', () => {
    it('answers [] for a tenant without devices', async () => {
      const empty = await app.createTenant();
      const answer = await list(await app.login(empty));
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(answer.body, []);
    });

    it('answers an array of every device of the tenant, each with keys mac, name, firmware-version', async () => {
      const own = await app.createTenant();
      const ownToken = await app.login(own);
      const sent = [
        { mac: 'AC:67:B2:00:00:0A', name: 'a', firmware_version: '1.0' },
        { mac: 'ac-67-b2-00-00-0b', name: 'b', firmware_version: '2.0' },
        { mac: 'ac67b200000c', firmware_version: '3.0' },
      ];
      for (const body of sent) assert.deepEqual((await register(body, ownToken)).body, { message: 'Device inserted!' });
      const answer = await list(ownToken);
      assert.equal(answer.status, 200);
      assert.ok(Array.isArray(answer.body));
      const devices = answer.body as Record<string, string>[];
      for (const device of devices) assert.deepEqual(Object.keys(device), ['mac', 'name', 'firmware-version']);
      const byMac = [...devices].sort((a, b) => a.mac.localeCompare(b.mac));
      assert.deepEqual(byMac, [
        { mac: 'AC:67:B2:00:00:0A', name: 'a', 'firmware-version': '1.0' },
        { mac: 'AC:67:B2:00:00:0B', name: 'b', 'firmware-version': '2.0' },
        { mac: 'AC:67:B2:00:00:0C', name: 'AC:67:B2:00:00:0C', 'firmware-version': '3.0' },
      ]);
    });
  });

  describe('delete', () => {
    it("answers Device deleted!, then 404 Device does't exist!; the device is gone", async () => {
      const mac = freshMac();
      assert.deepEqual((await register({ mac, firmware_version: '1.0' })).body, { message: 'Device inserted!' });
      const deleted = await remove(mac.toLowerCase().replace(/:/g, '-'));
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body, { message: 'Device deleted!' });
      assertError(await remove(mac), 404, "Device does't exist!");
      assertError(await getDevice(mac), 404, "Device does't exist!");
      assert.ok(!((await list()).body as { mac: string }[]).some((d) => d.mac === mac));
    });

    it('lets a deleted mac register again as a new device', async () => {
      const mac = freshMac();
      await register({ mac, firmware_version: '1.0', name: 'first' });
      assert.deepEqual((await remove(mac)).body, { message: 'Device deleted!' });
      assert.deepEqual((await register({ mac, firmware_version: '2.0', name: 'second' })).body, { message: 'Device inserted!' });
      assert.deepEqual((await getDevice(mac)).body, { mac, name: 'second', 'firmware-version': '2.0' });
    });

    it("answers 404 Device does't exist! for a mac never registered, and 400 naming mac for a bad one", async () => {
      assertError(await remove(freshMac()), 404, "Device does't exist!");
      assertError(await remove('ac:67:b2:01:02'), 400, /\bmac\b/);
    });
  });
});
