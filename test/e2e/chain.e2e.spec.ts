import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get, post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { binary, md5 } from '#test/support/bytes.js';

/** Published IPFS vector: `echo "hello world" | ipfs add` (defaults: CIDv0, 256 KiB chunks). */
const HELLO = Buffer.from('hello world\n');
const HELLO_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';
const CIDV0 = /^Qm[1-9A-HJ-NP-Za-km-z]{44}$/;

/** The two ledger lookups, each by GET (id in the path) and by POST (`{"id"}` in the body). */
describe('blockchain lookups', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;

  /**
   * Looks `id` up both ways, `GET {bc}/<kind>/:id` and `POST {bc}/<kind>/get` with `{"id"}` as the
   * field SDKs send it, asserts that the two answers are the same, and returns one.
   * `as`: the token to send; `null` sends none.
   */
  const lookup = async (kind: 'device' | 'firmware', id: string, as: string | null): Promise<Answer> => {
    const byPath = await get(`${app.urls.bc}/${kind}/${id}`, as ?? undefined);
    const byBody = await request('POST', `${app.urls.bc}/${kind}/get`, { token: as ?? undefined, body: { id } });
    const seen = (answer: Answer) => ({ status: answer.status, type: answer.headers.get('content-type'), body: answer.body });
    assert.deepEqual(seen(byBody), seen(byPath), `POST /${kind}/get answers as GET /${kind}/${id}`);
    return byPath;
  };
  const chainDevice = (id: string, as: string | null = token): Promise<Answer> => lookup('device', id, as);
  const chainFirmware = (id: string, as: string | null = token): Promise<Answer> => lookup('firmware', id, as);
  const register = async (mac: string, version: string, as = token): Promise<void> => {
    const answer = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: version }, as);
    assert.deepEqual(answer.body, { message: 'Device inserted!' });
  };
  const assertMessage = (answer: Answer, status: number, message: string): void => {
    assert.equal(answer.status, status, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(answer.body, { message });
  };

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('chain tenant', 'ESP32');
    token = await app.login(tenant);
  });
  after(() => app.close());

  describe('GET {bc}/device/:id', () => {
    it('answers {mac, fwId, dType}, all strings, with fwId of the published firmware of that version', async () => {
      const fw = await app.publishFirmware(tenant, '4.2.0', binary(300, 1));
      await register('AC:67:B2:30:00:01', '4.2.0');
      const answer = await chainDevice('AC:67:B2:30:00:01');
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.body as object).sort(), ['dType', 'fwId', 'mac']);
      for (const [key, value] of Object.entries(answer.body as object)) assert.equal(typeof value, 'string', key);
      assert.deepEqual(answer.body, { mac: 'AC:67:B2:30:00:01', fwId: String(fw.id), dType: 'ESP32' });
      assert.match((answer.body as { fwId: string }).fwId, /^\d+$/);
    });

    it('finds the device by any mac notation', async () => {
      await register('AC:67:B2:30:00:02', '0.0.1');
      for (const notation of ['ac-67-b2-30-00-02', 'ac:67:b2:30:00:02', 'ac67.b230.0002', 'AC67B2300002']) {
        const answer = await chainDevice(notation);
        assert.equal(answer.status, 200, notation);
        assert.deepEqual(answer.body, { mac: 'AC:67:B2:30:00:02', fwId: '', dType: 'ESP32' }, notation);
      }
    });

    it('answers fwId "" when no firmware of that version is published', async () => {
      await register('AC:67:B2:30:00:03', '7.7.7-unpublished');
      assert.deepEqual((await chainDevice('AC:67:B2:30:00:03')).body, { mac: 'AC:67:B2:30:00:03', fwId: '', dType: 'ESP32' });
    });

    it('answers fwId "" when the firmware of that version is for another device type', async () => {
      await app.publishFirmware(tenant, '5.0.0', binary(200, 2), 'ESP8266');
      await register('AC:67:B2:30:00:04', '5.0.0');
      assert.deepEqual((await chainDevice('AC:67:B2:30:00:04')).body, { mac: 'AC:67:B2:30:00:04', fwId: '', dType: 'ESP32' });
    });

    it('answers dType of the device key that registered the device, and fwId of firmware for that type', async () => {
      const pycom = await app.createDeviceKey(tenant, 'Pycom');
      const pycomToken = await app.login(pycom);
      const fw = await app.publishFirmware(tenant, '5.0.0', binary(210, 3), 'Pycom');
      await register('AC:67:B2:30:00:05', '5.0.0', pycomToken);
      // Looked up with a token of another key of the same tenant: the record is the tenant's.
      assert.deepEqual((await chainDevice('AC:67:B2:30:00:05')).body, { mac: 'AC:67:B2:30:00:05', fwId: String(fw.id), dType: 'Pycom' });
      assert.deepEqual((await chainDevice('AC:67:B2:30:00:05', pycomToken)).body, {
        mac: 'AC:67:B2:30:00:05',
        fwId: String(fw.id),
        dType: 'Pycom',
      });
    });

    it("follows the device's current version (reported on next rollout)", async () => {
      const fw = await app.publishFirmware(tenant, '6.1', binary(220, 4));
      await register('AC:67:B2:30:00:06', '6.0');
      assert.equal(((await chainDevice('AC:67:B2:30:00:06')).body as { fwId: string }).fwId, '');
      const next = await post(`${app.urls.vc}/api/device/next/rollout`, { mac: 'AC:67:B2:30:00:06', firmware_version: '6.1' }, token);
      assert.equal(next.status, 200);
      assert.deepEqual((await chainDevice('AC:67:B2:30:00:06')).body, { mac: 'AC:67:B2:30:00:06', fwId: String(fw.id), dType: 'ESP32' });
    });

    it('answers 404 Device not found for an absent and for a deleted device', async () => {
      assertMessage(await chainDevice('AC:67:B2:30:0F:FF'), 404, 'Device not found');
      await register('AC:67:B2:30:00:07', '1.0');
      assert.equal((await chainDevice('ac-67-b2-30-00-07')).status, 200);
      const deleted = await request('DELETE', `${app.urls.vc}/api/device/`, { token, body: { mac: 'AC:67:B2:30:00:07' } });
      assert.deepEqual(deleted.body, { message: 'Device deleted!' });
      assertMessage(await chainDevice('ac-67-b2-30-00-07'), 404, 'Device not found');
      assertMessage(await chainDevice('AC:67:B2:30:00:07'), 404, 'Device not found');
    });

    it('answers the device record after operators labelled the device, and for a device imported in bulk', async () => {
      const fw = await app.publishFirmware(tenant, '4.3.0', binary(300, 3));
      const bearer = await app.createOperatorToken('chain-spec');
      await register('AC:67:B2:30:00:19', '4.3.0');
      const labelled = await request('PUT', `${app.urls.operator}/tenants/${tenant.name}/devices/AC:67:B2:30:00:19/labels`, {
        bearer,
        body: { labels: ['hw_rev=3', 'site=lab'] },
      });
      assert.equal(labelled.status, 200, labelled.text);
      assert.deepEqual(
        (await chainDevice('AC:67:B2:30:00:19')).body,
        { mac: 'AC:67:B2:30:00:19', fwId: String(fw.id), dType: 'ESP32' },
        'labels are a ledger entry of the device, not its record',
      );

      const imported = await request('POST', `${app.urls.operator}/tenants/${tenant.name}/devices/import`, {
        bearer,
        rawBody: Buffer.from('mac,device_type,firmware_version\nAC:67:B2:30:00:1A,ESP32,4.3.0\n'),
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.status, 200, imported.text);
      assert.deepEqual((await chainDevice('AC:67:B2:30:00:1A')).body, { mac: 'AC:67:B2:30:00:1A', fwId: String(fw.id), dType: 'ESP32' });
    });

    it('answers 401 JWT is not valid without a token or with a bad one', async () => {
      await register('AC:67:B2:30:00:08', '1.0');
      assertMessage(await chainDevice('AC:67:B2:30:00:08', null), 401, 'JWT is not valid');
      assertMessage(await chainDevice('AC:67:B2:30:00:08', `${token}x`), 401, 'JWT is not valid');
    });
  });

  describe('GET {bc}/firmware/:id', () => {
    it('answers {md, cid, version} for hello world with the published IPFS CID', async () => {
      const fw = await app.publishFirmware(tenant, 'hello-1', HELLO);
      const answer = await chainFirmware(String(fw.id));
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.body as object).sort(), ['cid', 'md', 'version']);
      assert.deepEqual(answer.body, { md: '6f5902ac237024bdd0c176cb93063dc4', cid: HELLO_CID, version: 'hello-1' });
      assert.equal(md5(HELLO), '6f5902ac237024bdd0c176cb93063dc4');
    });

    it('answers the lowercase hex MD5 of the bytes and a CIDv0 for a larger binary', async () => {
      const bytes = binary(70_000, 5);
      const fw = await app.publishFirmware(tenant, '8.0.0', bytes);
      const answer = await chainFirmware(String(fw.id));
      assert.equal(answer.status, 200);
      const body = answer.body as { md: string; cid: string; version: string };
      assert.equal(body.md, md5(bytes));
      assert.match(body.md, /^[0-9a-f]{32}$/);
      assert.match(body.cid, CIDV0);
      assert.notEqual(body.cid, HELLO_CID);
      assert.equal(body.version, '8.0.0');
    });

    it('answers 404 Firmware not found for an absent id', async () => {
      assertMessage(await chainFirmware('987654'), 404, 'Firmware not found');
      assertMessage(await chainFirmware('not-an-id'), 404, 'Firmware not found');
    });

    it('answers 401 JWT is not valid without a token', async () => {
      const fw = await app.publishFirmware(tenant, 'auth-check', binary(10, 6));
      assertMessage(await chainFirmware(String(fw.id), null), 401, 'JWT is not valid');
      assertMessage(await chainFirmware(String(fw.id), 'garbage'), 401, 'JWT is not valid');
    });
  });

  describe('POST {bc}/device/get and {bc}/firmware/get (the body form the field SDKs send)', () => {
    const postRaw = (path: string, body: string, contentType = 'application/json'): Promise<Answer> =>
      request('POST', `${app.urls.bc}${path}`, { token, rawBody: body, headers: { 'content-type': contentType } });

    it('answers the bytes the ESP SDKs send ({"id":"<firmware_id>"}, as ArduinoJson writes it)', async () => {
      const fw = await app.publishFirmware(tenant, '9.1.0', binary(120, 9));
      const answer = await postRaw('/firmware/get', `{"id":"${fw.id}"}`);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, { md: md5(binary(120, 9)), cid: fw.cid, version: '9.1.0' });
    });

    it('answers the bytes the Pycom SDK sends ({"id": "<firmware_id>"}, as MicroPython writes it)', async () => {
      const fw = await app.publishFirmware(tenant, '9.2.0', binary(130, 10));
      const answer = await postRaw('/firmware/get', `{"id": "${fw.id}"}`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal((answer.body as { cid: string }).cid, fw.cid);
    });

    it('takes a JSON integer id as its decimal text, and ignores extra fields', async () => {
      const fw = await app.publishFirmware(tenant, '9.3.0', binary(140, 11));
      const answer = await postRaw('/firmware/get', JSON.stringify({ id: fw.id, customer_key: 'ignored', v_cred: 1 }));
      assert.equal(answer.status, 200, answer.text);
      assert.equal((answer.body as { version: string }).version, '9.3.0');
      await register('AC:67:B2:30:00:09', '9.3.0');
      const device = await postRaw('/device/get', '{"id":"ac:67:b2:30:00:09","extra":true}');
      assert.deepEqual(device.body, { mac: 'AC:67:B2:30:00:09', fwId: String(fw.id), dType: 'ESP32' });
    });

    it('answers 400 naming the field for a missing or mistyped id, before any lookup', async () => {
      for (const path of ['/device/get', '/firmware/get']) {
        assertMessage(await postRaw(path, '{}'), 400, 'id is required');
        assertMessage(await postRaw(path, '{"id":["1"]}'), 400, 'id must be a string');
        assertMessage(await postRaw(path, '{"id":1.5}'), 400, 'id must be a string');
        assertMessage(await postRaw(path, '{"id":'), 400, 'Body is not valid JSON');
        assertMessage(await postRaw(path, 'id=1', 'application/x-www-form-urlencoded'), 415, 'Body must be application/json');
      }
    });

    it('answers 401 JWT is not valid before reading the body', async () => {
      const answer = await request('POST', `${app.urls.bc}/firmware/get`, { body: {} });
      assertMessage(answer, 401, 'JWT is not valid');
    });
  });
});
