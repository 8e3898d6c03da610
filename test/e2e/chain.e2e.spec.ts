import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { get, post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '../support/harness.js';

/** Published IPFS vector: `echo "hello world" | ipfs add` (defaults: CIDv0, 256 KiB chunks). */
const HELLO = Buffer.from('hello world\n');
const HELLO_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';
const CIDV0 = /^Qm[1-9A-HJ-NP-Za-km-z]{44}$/;

const md5 = (bytes: Buffer): string => createHash('md5').update(bytes).digest('hex');

/** Deterministic, non-repeating-looking bytes of a given size. */
function binary(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** CONTRACT.md §7: the two blockchain lookups, and the firmware download by CID. */
describe('blockchain lookups and firmware download (CONTRACT.md §7)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;

  /** `as`: the token to send; `null` sends none. */
  const chainDevice = (id: string, as: string | null = token): Promise<Answer> => get(`${app.urls.bc}/device/${id}`, as ?? undefined);
  const chainFirmware = (id: string, as: string | null = token): Promise<Answer> => get(`${app.urls.bc}/firmware/${id}`, as ?? undefined);
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

  describe('GET {vc}/ipfs/{cid}', () => {
    const SIZE = 5000;
    const bytes = binary(SIZE, 7);
    let cid: string;
    const download = (path: string, headers: Record<string, string> = {}, as: string | null = token): Promise<Answer> =>
      request('GET', `${app.urls.vc}/ipfs/${path}`, { token: as ?? undefined, headers });

    before(async () => {
      cid = (await app.publishFirmware(tenant, 'download-1', bytes)).cid;
    });

    it('answers 401 JWT is not valid without a token', async () => {
      assertMessage(await download(cid, {}, null), 401, 'JWT is not valid');
    });

    it('answers 200 with the published bytes, Content-Length and an ETag holding the CID', async () => {
      const answer = await download(cid);
      assert.equal(answer.status, 200);
      assert.ok(answer.bytes.equals(bytes), 'body differs from the published bytes');
      assert.equal(answer.headers.get('content-length'), String(SIZE));
      assert.ok((answer.headers.get('etag') ?? '').includes(cid), `etag ${answer.headers.get('etag')}`);
    });

    it('serves hello world by its published CID', async () => {
      const own = await app.createTenant('hello tenant');
      await app.publishFirmware(own, '1.0', HELLO);
      const answer = await download(HELLO_CID, {}, await app.login(own));
      assert.equal(answer.status, 200);
      assert.ok(answer.bytes.equals(HELLO));
    });

    it('answers Range: bytes=10-19 with 206, those bytes and Content-Range', async () => {
      const answer = await download(cid, { range: 'bytes=10-19' });
      assert.equal(answer.status, 206);
      assert.ok(answer.bytes.equals(bytes.subarray(10, 20)));
      assert.equal(answer.headers.get('content-range'), `bytes 10-19/${SIZE}`);
      assert.equal(answer.headers.get('content-length'), '10');
    });

    it('answers an open-ended range (resume) with the rest of the bytes', async () => {
      const answer = await download(cid, { range: 'bytes=4096-' });
      assert.equal(answer.status, 206);
      assert.ok(answer.bytes.equals(bytes.subarray(4096)));
      assert.equal(answer.headers.get('content-range'), `bytes 4096-${SIZE - 1}/${SIZE}`);
    });

    it('answers a suffix range bytes=-5 with the last 5 bytes', async () => {
      const answer = await download(cid, { range: 'bytes=-5' });
      assert.equal(answer.status, 206);
      assert.ok(answer.bytes.equals(bytes.subarray(SIZE - 5)));
      assert.equal(answer.headers.get('content-range'), `bytes ${SIZE - 5}-${SIZE - 1}/${SIZE}`);
    });

    it('answers an unsatisfiable range with 416', async () => {
      const answer = await download(cid, { range: `bytes=${SIZE}-${SIZE + 10}` });
      assert.equal(answer.status, 416);
      assert.equal(answer.headers.get('content-range'), `bytes */${SIZE}`);
      // CONTRACT.md §3: every non-2xx body is a message object.
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.body as object), ['message']);
      assert.ok(!answer.bytes.includes(bytes.subarray(0, 16)));
    });

    it("answers 404 for another tenant's CID, as for an absent one", async () => {
      const other = await app.createTenant('other chain tenant');
      const otherCid = (await app.publishFirmware(other, 'secret-1', binary(1234, 8))).cid;
      const foreign = await download(otherCid);
      const absent = await download('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG');
      assert.equal(foreign.status, 404);
      assert.equal(absent.status, 404);
      assert.match(foreign.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(foreign.body as object), ['message']);
      assert.deepEqual(foreign.body, absent.body);
      assert.ok(!foreign.bytes.includes(binary(1234, 8).subarray(0, 16)));
    });
  });
});
