import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FirmwareDownloadRepository } from '#src/domain/delivery/firmware-download.repository.js';
import { get, post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { exchange, targetOf } from '#test/support/raw-http.js';
import { binary, md5 } from '#test/support/bytes.js';

/** The three forms of one download: the SDKs' POST, the documented GET and the IPFS gateway path. */
const FORMS = ['POST /firmware/download', 'GET /firmware/{cid}', 'GET /ipfs/{cid}'] as const;
type Form = (typeof FORMS)[number];

describe('the IPFS download server (IPFS_URL)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  const SIZE = 5000;
  const bytes = binary(SIZE, 7);
  let cid: string;
  let firmwareId: number;

  /** Downloads `id` in one form; `as` is the token (`null`: none). */
  const download = (form: Form, id: string, headers: Record<string, string> = {}, as: string | null = token): Promise<Answer> => {
    const options = { token: as ?? undefined, headers };
    if (form === 'POST /firmware/download') return request('POST', `${app.urls.ipfs}/firmware/download`, { ...options, body: { cid: id } });
    return request('GET', `${app.urls.ipfs}${form === 'GET /ipfs/{cid}' ? '/ipfs' : '/firmware'}/${id}`, options);
  };
  const assertMessage = (answer: Answer, status: number, message: string): void => {
    assert.equal(answer.status, status, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(answer.body, { message });
  };
  const downloads = () => app.server.app.get(FirmwareDownloadRepository);

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('ipfs tenant', 'ESP8266');
    token = await app.login(tenant);
    ({ cid, id: firmwareId } = await app.publishFirmware(tenant, 'download-1', bytes));
  });
  after(() => app.close());

  for (const form of FORMS) {
    describe(form, () => {
      it('answers 401 JWT is not valid without a token or with a bad one', async () => {
        assertMessage(await download(form, cid, {}, null), 401, 'JWT is not valid');
        assertMessage(await download(form, cid, {}, `${token}x`), 401, 'JWT is not valid');
      });

      it('answers 200 with the published bytes, Content-Length, x-MD5, the CID as ETag, and closes the connection', async () => {
        const answer = await download(form, cid);
        assert.equal(answer.status, 200, answer.text);
        assert.ok(answer.bytes.equals(bytes), 'body differs from the published bytes');
        assert.equal(answer.headers.get('content-length'), String(SIZE));
        assert.equal(answer.headers.get('x-md5'), md5(bytes));
        assert.equal(answer.headers.get('etag'), `"${cid}"`);
        assert.equal(answer.headers.get('connection'), 'close');
        assert.equal(answer.headers.get('transfer-encoding'), null);
      });

      it('answers a range with 206 and those bytes (interrupted downloads resume), a suffix range too', async () => {
        const middle = await download(form, cid, { range: 'bytes=10-19' });
        assert.equal(middle.status, 206);
        assert.ok(middle.bytes.equals(bytes.subarray(10, 20)));
        assert.equal(middle.headers.get('content-range'), `bytes 10-19/${SIZE}`);
        assert.equal(middle.headers.get('content-length'), '10');
        const rest = await download(form, cid, { range: 'bytes=4096-' });
        assert.equal(rest.status, 206);
        assert.ok(rest.bytes.equals(bytes.subarray(4096)));
        assert.equal(rest.headers.get('content-range'), `bytes 4096-${SIZE - 1}/${SIZE}`);
        const tail = await download(form, cid, { range: 'bytes=-5' });
        assert.ok(tail.bytes.equals(bytes.subarray(SIZE - 5)));
        // A range for another version of the bytes (If-Range with another tag) gets them whole.
        const stale = await download(form, cid, { range: 'bytes=10-19', 'if-range': '"QmSomethingElse"' });
        assert.equal(stale.status, 200);
        assert.ok(stale.bytes.equals(bytes));
      });

      it('answers an unsatisfiable range with 416, Content-Range and a message object', async () => {
        const answer = await download(form, cid, { range: `bytes=${SIZE}-${SIZE + 10}` });
        assertMessage(answer, 416, 'Range Not Satisfiable');
        assert.equal(answer.headers.get('content-range'), `bytes */${SIZE}`);
      });

      it('answers If-None-Match with the ETag 304, without a body', async () => {
        const answer = await download(form, cid, { 'if-none-match': `"${cid}"` });
        assert.equal(answer.status, 304);
        assert.equal(answer.bytes.length, 0);
      });

      it("answers 404 Firmware not found for another tenant's CID as for an absent one", async () => {
        const other = await app.createTenant();
        const secret = binary(1234, 8);
        const otherCid = (await app.publishFirmware(other, 'secret-1', secret)).cid;
        const foreign = await download(form, otherCid);
        assertMessage(foreign, 404, 'Firmware not found');
        assert.deepEqual(foreign.body, (await download(form, 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).body);
        assertMessage(await download(form, 'not-a-cid'), 404, 'Firmware not found');
        assert.ok(!foreign.bytes.includes(secret.subarray(0, 16)));
        assert.equal((await download(form, otherCid, {}, await app.login(other))).status, 200);
      });

      it('refuses an image larger than the free space the updater reports with 403, before a byte is sent', async () => {
        for (const family of ['ESP8266', 'ESP32']) {
          const refused = await download(form, cid, { [`x-${family}-free-space`]: String(SIZE - 1) });
          assertMessage(refused, 403, `Firmware is ${SIZE} bytes; the device has ${SIZE - 1} bytes free for it (x-${family}-free-space)`);
          const fits = await download(form, cid, { [`x-${family}-free-space`]: String(SIZE) });
          assert.equal(fits.status, 200);
          assert.ok(fits.bytes.equals(bytes));
        }
        // A value that is not a number of bytes only informs: it is ignored.
        assert.equal((await download(form, cid, { 'x-ESP8266-free-space': 'lots' })).status, 200);
      });
    });
  }

  describe('POST /firmware/download body', () => {
    it('answers 400 naming the field for a missing or mistyped cid, and 415 for a body that is not JSON', async () => {
      const raw = (body: string, type = 'application/json') =>
        request('POST', `${app.urls.ipfs}/firmware/download`, { token, rawBody: body, headers: { 'content-type': type } });
      assertMessage(await raw('{}'), 400, 'cid is required');
      assertMessage(await raw('{"cid":42}'), 400, 'cid must be a string');
      assertMessage(await raw(`cid=${cid}`, 'text/plain'), 415, 'Body must be application/json');
    });

    it('takes the body as the SDKs write it, extra fields ignored', async () => {
      const answer = await request('POST', `${app.urls.ipfs}/firmware/download`, {
        token,
        rawBody: `{"cid": "${cid}", "customer_key": "ignored"}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 200);
      assert.ok(answer.bytes.equals(bytes));
    });
  });

  describe('on the wire, as the ESP updaters and Pycom read it', () => {
    const body = () => `{"cid":"${cid}"}`;

    it('answers HTTP/1.0 with Content-Length, no transfer encoding, and closes the connection after the body', async () => {
      const answer = await exchange(
        targetOf(app.urls.ipfs),
        `POST /firmware/download HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n` +
          `x-access-token: ${token}\r\nContent-Length: ${body().length}\r\n\r\n${body()}`,
        { waitForClose: 5000 },
      );
      assert.equal(answer.status, 200, answer.head);
      assert.equal(answer.header('Content-Length'), String(SIZE));
      assert.equal(answer.header('Transfer-Encoding'), undefined);
      assert.equal(answer.header('x-MD5'), md5(bytes));
      assert.ok(answer.body.equals(bytes));
      assert.ok(answer.closedByServer, 'the server closes the connection after the body');
    });

    it('closes an HTTP/1.1 connection after the body too (Pycom reads until the connection closes)', async () => {
      const answer = await exchange(
        targetOf(app.urls.ipfs),
        `POST /firmware/download HTTP/1.1\r\nHost: 127.0.0.1\r\nx-access-token: ${token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body().length}\r\n\r\n${body()}`,
        { waitForClose: 5000 },
      );
      assert.equal(answer.status, 200, answer.head);
      assert.ok(answer.body.equals(bytes));
      assert.ok(answer.closedByServer, 'the server closes the connection after the body');
    });
  });

  describe('the record of downloads', () => {
    it('attributes a download to the device its updater names (x-ESP8266-STA-MAC), with the bytes sent', async () => {
      const mac = 'AC:67:B2:40:00:01';
      assert.equal((await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0.0' }, token)).status, 200);
      const device = await app.database.query<{ id: number }>('SELECT id FROM device WHERE mac = $1', [mac]);
      const before = app.clock.now();
      assert.equal((await download('POST /firmware/download', cid, { 'x-ESP8266-STA-MAC': 'ac:67:b2:40:00:01' })).status, 200);
      app.clock.advance(60);
      assert.equal((await download('GET /ipfs/{cid}', cid, { 'x-ESP32-STA-MAC': mac, range: 'bytes=4096-' })).status, 206);
      const seen = await downloads().forDevice(tenant.id, device[0].id);
      // Both downloads, newest first: the same device and image, each with its own range and time.
      const record = {
        tenantId: tenant.id,
        deviceKeyId: tenant.deviceKeyId,
        deviceId: device[0].id,
        mac,
        firmwareId,
        cid,
        rangeEnd: SIZE - 1,
      };
      assert.deepEqual(
        seen.map(({ id: _id, ...rest }) => rest),
        [
          { ...record, rangeStart: 4096, requestedAt: before + 60_000 },
          { ...record, rangeStart: 0, requestedAt: before },
        ],
      );
    });

    it('records the mac but no device for an unregistered mac or another tenant’s device, and neither without the header', async () => {
      const other = await app.createTenant();
      const otherToken = await app.login(other);
      const foreignMac = 'AC:67:B2:40:00:02';
      assert.equal((await post(`${app.urls.vc}/api/device/register`, { mac: foreignMac, firmware_version: '1' }, otherToken)).status, 200);
      const count = async () => Number((await app.database.query<{ n: number }>('SELECT COUNT(*) AS n FROM firmware_download'))[0].n);
      const start = await count();
      await download('GET /firmware/{cid}', cid, { 'x-ESP8266-STA-MAC': foreignMac });
      await download('GET /firmware/{cid}', cid, { 'x-ESP8266-STA-MAC': 'AC:67:B2:40:0F:FF' });
      await download('GET /firmware/{cid}', cid);
      const rows = await app.database.query<{ mac: string | null; device_id: number | null; tenant_id: number }>(
        'SELECT mac, device_id, tenant_id FROM firmware_download ORDER BY id DESC LIMIT 3',
      );
      assert.equal(await count(), start + 3);
      assert.deepEqual(
        rows.map((r) => [r.mac, r.device_id, Number(r.tenant_id)]),
        [
          [null, null, tenant.id],
          ['AC:67:B2:40:0F:FF', null, tenant.id],
          [foreignMac, null, tenant.id],
        ],
      );
    });

    it('records nothing for answers without bytes: 304, 403, 404, 416 and HEAD', async () => {
      const count = async () => Number((await app.database.query<{ n: number }>('SELECT COUNT(*) AS n FROM firmware_download'))[0].n);
      const start = await count();
      assert.equal((await download('GET /ipfs/{cid}', cid, { 'if-none-match': `"${cid}"` })).status, 304);
      assert.equal((await download('GET /ipfs/{cid}', cid, { 'x-ESP32-free-space': '1' })).status, 403);
      assert.equal((await download('GET /ipfs/{cid}', 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).status, 404);
      assert.equal((await download('GET /ipfs/{cid}', cid, { range: 'bytes=99999-' })).status, 416);
      const head = await request('HEAD', `${app.urls.ipfs}/ipfs/${cid}`, { token });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(SIZE));
      assert.equal(await count(), start);
    });
  });

  it('is served by the IPFS component only: the version controller no longer answers /ipfs/{cid}', async () => {
    const answer = await get(`${app.urls.vc}/ipfs/${cid}`, token);
    assertMessage(answer, 404, 'Not Found');
  });
});
