import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

// docs/decisions.md §3 (error bodies, 400/413/415, nothing leaks) and §1 (extra fields ignored).

const KIB = 1024;

/** Signs of internals that must never reach a response (docs/decisions.md §3). */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /\bat\s+\S+\s+\(|\n\s*at\s/],
  ['SQL driver', /SQLITE|sqlite3|QueryFailedError|duplicate key|violates|relation "|pg_advisory|SELECT\s|INSERT\s|UPDATE\s|DELETE\s+FROM/i],
  ['file path', /\/work\/|node_modules|file:\/\/|\.(?:ts|js):\d+/],
  ['error class', /\b(?:TypeError|ReferenceError|SyntaxError|RangeError|EntityNotFound)\b/],
];

/** Asserts the one error shape: exactly `{"message": "<text>"}`, JSON content type, no internals. */
function assertErrorBody(answer: Answer, status: number, what: string): string {
  assert.equal(answer.status, status, `${what}: status ${answer.status} ${answer.text}`);
  assert.match(
    answer.headers.get('content-type') ?? '',
    /^application\/json/,
    `${what}: content-type ${answer.headers.get('content-type')}`,
  );
  const parsed = JSON.parse(answer.text) as unknown;
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `${what}: body is an object`);
  assert.deepEqual(Object.keys(parsed), ['message'], `${what}: only a message field`);
  const { message } = parsed as { message: unknown };
  assert.equal(typeof message, 'string', `${what}: message is text`);
  assert.ok((message as string).length > 0, `${what}: message is not empty`);
  for (const [kind, pattern] of LEAKS) assert.doesNotMatch(answer.text, pattern, `${what}: ${kind} in ${answer.text}`);
  return message as string;
}

describe('error bodies (docs/decisions.md §3)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let vc: string;
  let auth: string;
  let bc: string;

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant();
    token = await app.login(tenant);
    ({ vc, auth, bc } = app.urls);
  });
  after(() => app.close());

  const json = { 'content-type': 'application/json' };

  describe('malformed JSON → 400', () => {
    const bodies = [
      '{"mac": ',
      "{'mac': '02:00:00:00:00:01'}",
      '{"mac": "02:00:00:00:00:01",}',
      'not json',
      '{"mac": "02:00:00:00:00:01"} trailing',
    ];
    for (const raw of bodies) {
      it(`answers 400 to ${JSON.stringify(raw)} on register, next rollout and login`, async () => {
        assertErrorBody(await request('POST', `${vc}/api/device/register`, { token, rawBody: raw, headers: json }), 400, 'register');
        assertErrorBody(
          await request('POST', `${vc}/api/device/next/rollout`, { token, rawBody: raw, headers: json }),
          400,
          'next rollout',
        );
        assertErrorBody(await request('DELETE', `${vc}/api/device/`, { token, rawBody: raw, headers: json }), 400, 'delete');
        assertErrorBody(await request('POST', `${auth}/auth/login`, { rawBody: raw, headers: json }), 400, 'login');
      });
    }

    it('answers 400 to an empty application/json body', async () => {
      assertErrorBody(await request('POST', `${vc}/api/device/register`, { token, rawBody: '', headers: json }), 400, 'register');
      assertErrorBody(await request('POST', `${auth}/auth/login`, { rawBody: '', headers: json }), 400, 'login');
    });
  });

  describe('JSON that is not an object → 400', () => {
    const bodies: [string, string][] = [
      ['an array', JSON.stringify([{ mac: '02:00:00:00:00:01', firmware_version: '1.0.0' }])],
      ['a string', JSON.stringify('02:00:00:00:00:01')],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ];
    for (const [what, raw] of bodies) {
      it(`answers 400 to ${what}`, async () => {
        assertErrorBody(
          await request('POST', `${vc}/api/device/register`, { token, rawBody: raw, headers: json }),
          400,
          `register with ${what}`,
        );
        assertErrorBody(
          await request('POST', `${vc}/api/device/success/rollout`, { token, rawBody: raw, headers: json }),
          400,
          `success with ${what}`,
        );
        assertErrorBody(await request('POST', `${auth}/auth/login`, { rawBody: raw, headers: json }), 400, `login with ${what}`);
      });
    }
  });

  describe('body not application/json → 415', () => {
    const register = JSON.stringify({ mac: '02:00:00:00:00:02', firmware_version: '1.0.0' });
    const types: [string, string][] = [
      ['text/plain', register],
      ['application/x-www-form-urlencoded', 'mac=02%3A00%3A00%3A00%3A00%3A02&firmware_version=1.0.0'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="mac"\r\n\r\n02:00:00:00:00:02\r\n--x--\r\n'],
      ['application/xml', '<mac>02:00:00:00:00:02</mac>'],
    ];
    for (const [type, raw] of types) {
      it(`answers 415 to ${type} on register and login`, async () => {
        assertErrorBody(
          await request('POST', `${vc}/api/device/register`, { token, rawBody: raw, headers: { 'content-type': type } }),
          415,
          `register ${type}`,
        );
        assertErrorBody(
          await request('POST', `${auth}/auth/login`, { rawBody: raw, headers: { 'content-type': type } }),
          415,
          `login ${type}`,
        );
      });
    }

    it('did not register the device sent as text/plain or form data', async () => {
      const answer = await request('GET', `${vc}/api/device/02:00:00:00:00:02`, { token });
      assertErrorBody(answer, 404, 'device sent in a non-JSON body');
      assert.deepEqual(answer.body, { message: "Device does't exist!" });
    });

    it('answers 415 to a body sent without any Content-Type', async () => {
      const response = await fetch(`${vc}/api/device/register`, {
        method: 'POST',
        headers: { 'x-access-token': token },
        body: Buffer.from(JSON.stringify({ mac: '02:00:00:00:00:02', firmware_version: '1.0.0' })),
      });
      const text = await response.text();
      assert.equal(response.status, 415, text);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(JSON.parse(text) as object), ['message']);
    });

    it('reads the media type case-insensitively (Application/JSON;charset=UTF-8 is JSON)', async () => {
      for (const [i, type] of ['Application/JSON', 'APPLICATION/JSON;charset=UTF-8'].entries()) {
        const answer = await request('POST', `${vc}/api/device/register`, {
          token,
          rawBody: JSON.stringify({ mac: `02:00:00:00:01:0${i}`, firmware_version: '1.0.0' }),
          headers: { 'content-type': type },
        });
        assert.equal(answer.status, 200, `${type}: ${answer.text}`);
        assert.deepEqual(answer.body, { message: 'Device inserted!' });
      }
    });

    it('accepts application/json with a charset parameter', async () => {
      const answer = await request('POST', `${vc}/api/device/register`, {
        token,
        rawBody: JSON.stringify({ mac: '02:00:00:00:00:03', firmware_version: '1.0.0' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
    });
  });

  describe('body over 16 KiB on a device endpoint → 413', () => {
    /** A JSON object of exactly `bytes` bytes: a valid register body padded with an ignored field. */
    function bodyOf(bytes: number, mac: string): string {
      const base = JSON.stringify({ mac, firmware_version: '1.0.0', pad: '' });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(bytes - base.length)}"`);
    }

    it('answers 413 to a body of 16 KiB + 1 byte and to 64 KiB, on register, next rollout and login', async () => {
      for (const size of [16 * KIB + 1, 64 * KIB]) {
        const raw = bodyOf(size, '02:00:00:00:00:04');
        assert.equal(Buffer.byteLength(raw), size);
        assertErrorBody(
          await request('POST', `${vc}/api/device/register`, { token, rawBody: raw, headers: json }),
          413,
          `register ${size} B`,
        );
        assertErrorBody(
          await request('POST', `${vc}/api/device/next/rollout`, { token, rawBody: raw, headers: json }),
          413,
          `next rollout ${size} B`,
        );
        assertErrorBody(await request('POST', `${auth}/auth/login`, { rawBody: raw, headers: json }), 413, `login ${size} B`);
      }
      const absent = await request('GET', `${vc}/api/device/02:00:00:00:00:04`, { token });
      assert.equal(absent.status, 404, 'the oversized registration did not happen');
    });

    it('answers 413 to an oversized body sent chunked, without Content-Length', async () => {
      const raw = Buffer.from(bodyOf(20 * KIB, '02:00:00:00:00:08'));
      const response = await fetch(`${vc}/api/device/register`, {
        method: 'POST',
        headers: { 'x-access-token': token, 'content-type': 'application/json' },
        body: Readable.from([raw.subarray(0, 8 * KIB), raw.subarray(8 * KIB, 16 * KIB), raw.subarray(16 * KIB)]),
        duplex: 'half',
      });
      const text = await response.text();
      assert.equal(response.status, 413, text);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(JSON.parse(text) as object), ['message']);
      const absent = await request('GET', `${vc}/api/device/02:00:00:00:00:08`, { token });
      assert.equal(absent.status, 404, 'the oversized registration did not happen');
    });

    it('accepts a body of exactly 16 KiB', async () => {
      const raw = bodyOf(16 * KIB, '02:00:00:00:00:05');
      assert.equal(Buffer.byteLength(raw), 16 * KIB);
      const answer = await request('POST', `${vc}/api/device/register`, { token, rawBody: raw, headers: json });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
    });
  });

  describe('field errors → 400 naming the field', () => {
    const cases: { what: string; path: string; body: Record<string, unknown>; field: string }[] = [
      { what: 'register without mac', path: '/api/device/register', body: { firmware_version: '1.0.0' }, field: 'mac' },
      {
        what: 'register with a numeric mac',
        path: '/api/device/register',
        body: { mac: 20000000001, firmware_version: '1.0.0' },
        field: 'mac',
      },
      {
        what: 'register with a malformed mac',
        path: '/api/device/register',
        body: { mac: 'not-a-mac', firmware_version: '1.0.0' },
        field: 'mac',
      },
      {
        what: 'register without firmware_version',
        path: '/api/device/register',
        body: { mac: '02:00:00:00:00:06' },
        field: 'firmware_version',
      },
      {
        what: 'register with a numeric firmware_version',
        path: '/api/device/register',
        body: { mac: '02:00:00:00:00:06', firmware_version: 1 },
        field: 'firmware_version',
      },
      {
        what: 'register with a 65-character firmware_version',
        path: '/api/device/register',
        body: { mac: '02:00:00:00:00:06', firmware_version: 'v'.repeat(65) },
        field: 'firmware_version',
      },
      {
        what: 'register with a 129-character name',
        path: '/api/device/register',
        body: { mac: '02:00:00:00:00:06', firmware_version: '1.0.0', name: 'n'.repeat(129) },
        field: 'name',
      },
      {
        what: 'next rollout without firmware_version',
        path: '/api/device/next/rollout',
        body: { mac: '02:00:00:00:00:06' },
        field: 'firmware_version',
      },
      {
        what: 'success without rollout_id',
        path: '/api/device/success/rollout',
        body: { mac: '02:00:00:00:00:06', firmware_version: '1.0.0' },
        field: 'rollout_id',
      },
    ];
    for (const { what, path, body, field } of cases) {
      it(`answers 400 naming ${field}: ${what}`, async () => {
        const message = assertErrorBody(await request('POST', `${vc}${path}`, { token, body }), 400, what);
        assert.ok(message.includes(field), `message "${message}" names ${field}`);
      });
    }

    it('answers 400 naming mac for a delete with a mistyped mac', async () => {
      const message = assertErrorBody(
        await request('DELETE', `${vc}/api/device/`, { token, body: { mac: ['02:00:00:00:00:06'] } }),
        400,
        'delete',
      );
      assert.ok(message.includes('mac'), `message "${message}" names mac`);
    });

    it('answers 400 to a malformed mac path parameter', async () => {
      assertErrorBody(await request('GET', `${vc}/api/device/not-a-mac`, { token }), 400, 'GET /api/device/not-a-mac');
    });
  });

  describe('other error answers keep the shape and leak nothing', () => {
    it('401 JWT is not valid', async () => {
      const answer = await request('GET', `${vc}/api/device/`, { token: 'forged' });
      assertErrorBody(answer, 401, 'vc');
      assert.deepEqual(answer.body, { message: 'JWT is not valid' });
      assertErrorBody(await request('GET', `${bc}/device/02:00:00:00:00:01`), 401, 'bc');
    });

    it('401 before 400: a bad token with a bad body on next rollout is answered JWT is not valid', async () => {
      for (const body of [{ mac: 'not-a-mac' }, {}, 'not json']) {
        for (const sent of [{ token: 'forged' }, {}]) {
          const answer = await request('POST', `${vc}/api/device/next/rollout`, {
            ...sent,
            ...(typeof body === 'string' ? { rawBody: body, headers: json } : { body }),
          });
          assert.equal(answer.status, 401, `${JSON.stringify(body)} ${JSON.stringify(sent)}`);
          assert.deepEqual(answer.body, { message: 'JWT is not valid' });
        }
      }
    });

    it('401 Invalid credentials', async () => {
      const timestamp = Math.floor(app.clock.now() / 1000);
      const answer = await request('POST', `${auth}/auth/login`, {
        body: { device_key: tenant.deviceKey, timestamp, device_signature: deviceSignature('wrong', String(timestamp), tenant.deviceKey) },
      });
      assertErrorBody(answer, 401, 'login');
      assert.deepEqual(answer.body, { message: 'Invalid credentials' });
    });

    it('404 for absent resources and unknown routes', async () => {
      assert.deepEqual(
        assertErrorBody(await request('GET', `${vc}/api/device/02:00:00:00:0f:0f`, { token }), 404, 'absent device'),
        "Device does't exist!",
      );
      assert.deepEqual(
        assertErrorBody(await request('DELETE', `${vc}/api/device/`, { token, body: { mac: '02:00:00:00:0f:0f' } }), 404, 'delete absent'),
        "Device does't exist!",
      );
      assert.deepEqual(assertErrorBody(await request('GET', `${vc}/api/report/csv`, { token }), 404, 'report type'), 'Unknown report type');
      assert.deepEqual(assertErrorBody(await request('GET', `${vc}/nothing/here`), 404, 'unknown route'), 'Not Found');
      assert.deepEqual(
        assertErrorBody(await request('GET', `${bc}/device/02:00:00:00:0f:0f`, { token }), 404, 'chain device'),
        'Device not found',
      );
      assert.deepEqual(
        assertErrorBody(await request('GET', `${bc}/firmware/424242`, { token }), 404, 'chain firmware'),
        'Firmware not found',
      );
    });

    it('no internals for odd inputs that reach the database or the router', async () => {
      const probes: [string, () => Promise<Answer>][] = [
        [
          'huge rollout_id',
          () =>
            request('POST', `${vc}/api/device/success/rollout`, {
              token,
              body: { mac: '02:00:00:00:00:03', firmware_version: '1.0.0', rollout_id: '99999999999999999999' },
            }),
        ],
        [
          'SQL-ish rollout_id',
          () =>
            request('POST', `${vc}/api/device/success/rollout`, {
              token,
              body: { mac: '02:00:00:00:00:03', firmware_version: '1.0.0', rollout_id: "1' OR '1'='1" },
            }),
        ],
        ['SQL-ish mac path', () => request('GET', `${vc}/api/device/${encodeURIComponent("' OR 1=1 --")}`, { token })],
        ['malformed percent-encoding', () => request('GET', `${vc}/api/device/%E0%A4%A`, { token })],
        ['NUL in path', () => request('GET', `${vc}/api/device/%00`, { token })],
        ['SQL-ish firmware id', () => request('GET', `${bc}/firmware/${encodeURIComponent('1; DROP TABLE firmware')}`, { token })],
        ['huge firmware id', () => request('GET', `${bc}/firmware/${'9'.repeat(40)}`, { token })],
      ];
      for (const [what, send] of probes) {
        const answer = await send();
        assert.ok(answer.status >= 400 && answer.status < 500, `${what}: a client error, got ${answer.status} ${answer.text}`);
        assertErrorBody(answer, answer.status, what);
      }
      const list = await request('GET', `${vc}/api/device/`, { token });
      assert.equal(list.status, 200, 'the service still answers');
    });
  });
});

describe('extra fields in version-controller bodies are ignored (docs/decisions.md §1)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  const MAC = '02:00:00:00:0C:01';
  const extras = { customer_key: 'ck-from-an-old-client', device_key: 'dk-from-an-old-client', v_cred: 'v1' };

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant();
    token = await app.login(tenant);
  });
  after(() => app.close());

  it('registers with extra fields and stores none of them', async () => {
    const answer = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      body: { mac: MAC, firmware_version: '1.0.0', name: 'old', ...extras },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { message: 'Device inserted!' });
    const device = await request('GET', `${app.urls.vc}/api/device/${MAC}`, { token });
    assert.equal(device.status, 200, device.text);
    assert.deepEqual(device.body, { mac: MAC, name: 'old', 'firmware-version': '1.0.0' });
    const again = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      body: { mac: MAC, firmware_version: '1.0.0', ...extras },
    });
    assert.deepEqual(again.body, { message: 'Device exists!' });
  });

  it('asks for and reports a rollout with extra fields', async () => {
    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('firmware 2.0.0 for extra-field clients'));
    await app.createGroup(tenant, 'extras', [MAC]);
    const rollout = await app.createRollout(tenant, { firmwareId: firmware.id, group: 'extras' });
    const next = await request('POST', `${app.urls.vc}/api/device/next/rollout`, {
      token,
      body: { mac: MAC, firmware_version: '1.0.0', ...extras },
    });
    assert.equal(next.status, 200, next.text);
    assert.equal((next.body as { rollout_id?: unknown }).rollout_id, String(rollout.id));
    const success = await request('POST', `${app.urls.vc}/api/device/success/rollout`, {
      token,
      body: { mac: MAC, firmware_version: '2.0.0', rollout_id: String(rollout.id), ...extras },
    });
    assert.equal(success.status, 200, success.text);
    assert.deepEqual(success.body, { message: 'Successfully inserted!' });
    const none = await request('POST', `${app.urls.vc}/api/device/next/rollout`, {
      token,
      body: { mac: MAC, firmware_version: '2.0.0', ...extras },
    });
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.body, {});
  });

  it('deletes with extra fields', async () => {
    const answer = await request('DELETE', `${app.urls.vc}/api/device/`, { token, body: { mac: MAC, ...extras } });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { message: 'Device deleted!' });
    const gone = await request('GET', `${app.urls.vc}/api/device/${MAC}`, { token });
    assert.equal(gone.status, 404);
  });
});
