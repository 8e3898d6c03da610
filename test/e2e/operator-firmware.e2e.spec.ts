import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import type { FirmwareView } from '#src/domain/firmware/firmware.service.js';
import { request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { md5 } from '#test/support/bytes.js';
import type { FirmwareResponse } from '#src/operator/dto/firmware.dto.js';

const KIB = 1024;
const MIB = 1024 * KIB;
/** FIRMWARE_MAX_BYTES of this spec's server: small, so the limits are cheap to cross. */
const LIMIT = 1 * MIB;
const TOO_LARGE = `Firmware binary is larger than ${LIMIT} bytes (FIRMWARE_MAX_BYTES)`;
const OCTETS = { 'content-type': 'application/octet-stream' };

/** CIDv0 `ipfs add` gives the 12 bytes "hello world\n" (ipfs/go-ipfs README). */
const HELLO = Buffer.from('hello world\n');
const HELLO_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';

/** The repository root of this checkout (the compiled spec is `dist/test/e2e/`), where the CLI runs. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type FirmwareBody = FirmwareResponse;

/** A raw HTTP exchange over node:http, so the test decides when (and whether) body bytes go out. */
interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Body bytes the client had written when the answer's headers arrived. */
  sentBeforeAnswer: number;
  /** Whether the client had finished its request body when the answer's headers arrived. */
  endedBeforeAnswer: boolean;
}

/**
 * POSTs `chunks` (chunked unless `headers` has a Content-Length), then, unless `end` is false,
 * ends the body; waits for the answer without ending a body left open. Fails after 10 s
 * without an answer (a server waiting for a body that never comes).
 */
function rawPost(url: string, headers: Record<string, string>, chunks: Buffer[], end: boolean): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let ended = false;
    const req = httpRequest(url, { method: 'POST', headers });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer after 10 s (${sent} body bytes sent, ended: ${ended})`));
    }, 10_000);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      const snapshot = { sentBeforeAnswer: sent, endedBeforeAnswer: ended };
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as unknown, ...snapshot });
      });
    });
    req.flushHeaders();
    void (async () => {
      for (const chunk of chunks) {
        sent += chunk.length;
        if (!req.write(chunk)) await new Promise((drained) => req.once('drain', drained));
      }
      if (end) {
        ended = true;
        req.end();
      }
    })();
  });
}

/** `size` random bytes in chunks of `chunkSize`. */
function chunksOf(size: number, chunkSize = 64 * KIB): Buffer[] {
  const chunks: Buffer[] = [];
  for (let left = size; left > 0; left -= chunkSize) chunks.push(randomBytes(Math.min(chunkSize, left)));
  return chunks;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * docs/decisions.md §9 firmware on the operator API: upload as a streamed binary body (digests, CID,
 * storage, ledger), list, get; FIRMWARE_MAX_BYTES refused without leftovers; the body parser of
 * device routes unchanged (docs/decisions.md §3).
 */
describe('operator API: firmware (docs/decisions.md §9)', () => {
  let app: TestApp;
  let bearer: string;
  let acme: TestTenant;
  let other: TestTenant;

  const url = (path: string): string => `${app.urls.operator}${path}`;
  const upload = (tenant: string, query: string, body: Buffer | string, headers: Record<string, string> = OCTETS): Promise<Answer> =>
    request('POST', url(`/tenants/${tenant}/firmware${query}`), { bearer, rawBody: body, headers });
  const listAll = async (tenant: TestTenant): Promise<FirmwareBody[]> => {
    const answer = await request('GET', url(`/tenants/${tenant.id}/firmware?per_page=500`), { bearer });
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { items: FirmwareBody[] }).items;
  };
  const artifacts = (): Promise<string[]> => readdir(join(app.config.dataDir, 'artifacts')).then((names) => names.sort());
  const publishedEntries = (tenant: TestTenant): Promise<number> =>
    app.server.app.get(DataSource).getRepository(LedgerEntry).countBy({ tenantId: tenant.id, type: 'firmware.published' });
  /** `status` with `{"message"}`, or `{"message", "field"}` when a 400 names the field. */
  const assertMessage = (answer: { status: number; body: unknown }, status: number, message: string | RegExp, field?: string): void => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body as object), field === undefined ? ['message'] : ['message', 'field']);
    assert.equal((answer.body as { field?: string }).field, field);
    const text = (answer.body as { message: string }).message;
    if (typeof message === 'string') assert.equal(text, message);
    else assert.match(text, message);
  };

  /** What must hold after a refused upload: nothing half-written anywhere. */
  async function assertNothingLeft(tenant: TestTenant, before: { artifacts: string[]; firmware: FirmwareBody[]; entries: number }) {
    const names = await artifacts();
    assert.deepEqual(
      names.filter((name) => name.startsWith('.')),
      [],
      'a temporary file was left in data/artifacts',
    );
    assert.deepEqual(names, before.artifacts, 'the artifacts directory changed');
    assert.deepEqual(await listAll(tenant), before.firmware, 'the firmware list changed');
    assert.equal(await publishedEntries(tenant), before.entries, 'a firmware.published ledger entry was written');
  }
  const state = async (tenant: TestTenant) => ({
    artifacts: await artifacts(),
    firmware: await listAll(tenant),
    entries: await publishedEntries(tenant),
  });

  before(async () => {
    app = await startTestApp({ FIRMWARE_MAX_BYTES: String(LIMIT) });
    bearer = await app.createOperatorToken('firmware-spec');
    acme = await app.createTenant('fw-acme', 'ESP32');
    other = await app.createTenant('fw-other', 'ESP32');
    // The artifacts directory exists from the first publish on.
    await app.publishFirmware(other, '0.0.1', Buffer.from('seed'));
  });
  after(() => app.close());

  describe('POST /tenants/:tenant/firmware', () => {
    it('publishes "hello world\\n" with the md5, sha256 and CIDv0 `ipfs add` gives → 201', async () => {
      const answer = await upload('fw-acme', '?version=1.0.0&device_type=ESP32', HELLO);
      assert.equal(answer.status, 201, answer.text);
      const body = answer.body as FirmwareBody;
      assert.deepEqual(Object.keys(body), [
        'id',
        'version',
        'device_type',
        'size',
        'md5',
        'sha256',
        'cid',
        'created_at',
        'filename',
        'mender_artifact',
        'rollback_target',
      ]);
      assert.equal(body.mender_artifact, null, 'not a Mender artifact');
      assert.equal(
        (body as unknown as { rollback_target: boolean }).rollback_target,
        false,
        'not a rollback target until an operator marks it',
      );
      assert.equal(body.filename, 'ESP32-1.0.0.bin', 'published without a file name: its DDI artifact is named by type and version');
      assert.equal(typeof body.id, 'number');
      assert.deepEqual(
        { version: body.version, device_type: body.device_type, size: body.size, md5: body.md5, sha256: body.sha256, cid: body.cid },
        { version: '1.0.0', device_type: 'ESP32', size: 12, md5: md5(HELLO), sha256: sha256(HELLO), cid: HELLO_CID },
      );
      assert.match(body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(await publishedEntries(acme), 1);
    });

    it('takes a tenant by id as well as by name', async () => {
      const answer = await upload(String(acme.id), '?version=1.0.0-by-id&device_type=ESP32', Buffer.from('by id'));
      assert.equal(answer.status, 201, answer.text);
    });

    it('streams a chunked multi-chunk body (fetch, ReadableStream): the same digests and CID as `firmledger firmware publish`', async () => {
      const bytes = randomBytes(700 * KIB); // three 256 KiB IPFS chunks: a real DAG, not a single node
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(offset, offset + 50_000));
          offset += 50_000;
        },
      });
      const response = await fetch(url('/tenants/fw-acme/firmware?version=2.0.0&device_type=ESP32'), {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, ...OCTETS },
        body: stream,
        duplex: 'half',
      });
      const text = await response.text();
      assert.equal(response.status, 201, text);
      const uploaded = JSON.parse(text) as FirmwareBody;
      assert.equal(uploaded.size, bytes.length);
      assert.equal(uploaded.md5, md5(bytes));
      assert.equal(uploaded.sha256, sha256(bytes));

      // The CLI, as a separate process on the same DATA_DIR, publishing the same file for another tenant.
      const file = join(app.config.dataDir, 'fw-2.0.0.bin');
      await writeFile(file, bytes);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['bin/firmledger.js', 'firmware', 'publish', file, '--tenant', 'fw-other', '--version', '2.0.0', '--type', 'ESP32', '--json'],
        { cwd: ROOT, env: { PATH: process.env['PATH'], ...app.database.env, LOG_LEVEL: 'error' }, timeout: 60_000 },
      );
      const published = JSON.parse(stdout) as FirmwareView;
      assert.deepEqual(
        { size: uploaded.size, md5: uploaded.md5, sha256: uploaded.sha256, cid: uploaded.cid },
        { size: published.size, md5: published.md5, sha256: published.sha256, cid: published.cid },
      );
    });

    it('is downloadable by a device of the tenant at {ipfs}/ipfs/{cid}, byte for byte', async () => {
      const bytes = randomBytes(300 * KIB);
      const answer = await upload('fw-acme', '?version=3.0.0&device_type=ESP32', bytes);
      assert.equal(answer.status, 201, answer.text);
      const { cid } = answer.body as FirmwareBody;
      const token = await app.login(acme);
      const download = await request('GET', `${app.urls.ipfs}/ipfs/${cid}`, { token });
      assert.equal(download.status, 200);
      assert.ok(download.bytes.equals(bytes), 'downloaded bytes differ from the uploaded ones');
      const ranged = await request('GET', `${app.urls.ipfs}/ipfs/${cid}`, { token, headers: { range: 'bytes=1000-1999' } });
      assert.equal(ranged.status, 206);
      assert.ok(ranged.bytes.equals(bytes.subarray(1000, 2000)));
      // Not another tenant's device.
      const foreign = await request('GET', `${app.urls.ipfs}/ipfs/${cid}`, { token: await app.login(other) });
      assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Firmware not found' }]);
    });

    it('accepts a body of exactly FIRMWARE_MAX_BYTES', async () => {
      const bytes = randomBytes(LIMIT);
      const answer = await upload('fw-acme', '?version=4.0.0&device_type=ESP32', bytes);
      assert.equal(answer.status, 201, answer.text);
      assert.equal((answer.body as FirmwareBody).size, LIMIT);
    });

    it('answers 409 for a version already published for the type, keeping the first; another type may reuse it', async () => {
      const first = (await listAll(acme)).find((f) => f.version === '1.0.0');
      const answer = await upload('fw-acme', '?version=1.0.0&device_type=ESP32', Buffer.from('another 1.0.0'));
      assertMessage(answer, 409, 'Firmware 1.0.0 for ESP32 is already published');
      assert.deepEqual(
        (await listAll(acme)).find((f) => f.version === '1.0.0'),
        first,
      );
      const otherType = await upload('fw-acme', '?version=1.0.0&device_type=ESP8266', Buffer.from('1.0.0 for ESP8266'));
      assert.equal(otherType.status, 201, otherType.text);
      assert.equal((otherType.body as FirmwareBody).device_type, 'ESP8266');
    });

    describe('400 naming the field', () => {
      const cases: [string, string, string, string][] = [
        ['no version', '?device_type=ESP32', 'version is required', 'version'],
        ['no device_type', '?version=5.0.0', 'device_type is required', 'device_type'],
        ['neither', '', 'version is required', 'version'],
        ['an empty version', '?version=&device_type=ESP32', 'version must be 1 to 64 characters', 'version'],
        ['a 65-character version', `?version=${'9'.repeat(65)}&device_type=ESP32`, 'version must be 1 to 64 characters', 'version'],
        ['a version with a control character', '?version=5.0%0A&device_type=ESP32', 'version must be printable characters', 'version'],
        ['a repeated version', '?version=5.0.0&version=5.0.1&device_type=ESP32', 'version must be a string', 'version'],
        ['an empty device_type', '?version=5.0.0&device_type=', 'device_type must be 1 to 64 characters', 'device_type'],
      ];
      for (const [what, query, message, field] of cases) {
        it(`for ${what}: ${message}`, async () => {
          const before = await state(acme);
          assertMessage(await upload('fw-acme', query, Buffer.from('firmware')), 400, message, field);
          await assertNothingLeft(acme, before);
        });
      }

      it('for an empty body (Content-Length: 0, chunked, or none at all): Firmware binary is empty', async () => {
        const before = await state(acme);
        assertMessage(await upload('fw-acme', '?version=5.0.0&device_type=ESP32', Buffer.alloc(0)), 400, 'Firmware binary is empty');
        const chunked = await rawPost(
          url('/tenants/fw-acme/firmware?version=5.0.0&device_type=ESP32'),
          { authorization: `Bearer ${bearer}`, ...OCTETS },
          [],
          true,
        );
        assertMessage(chunked, 400, 'Firmware binary is empty');
        const none = await request('POST', url('/tenants/fw-acme/firmware?version=5.0.0&device_type=ESP32'), { bearer });
        assertMessage(none, 400, 'Firmware binary is empty');
        await assertNothingLeft(acme, before);
      });
    });

    describe('415 for anything but application/octet-stream', () => {
      const types: [string, string | Buffer][] = [
        ['application/json', '{"version":"6.0.0"}'],
        ['text/plain', 'firmware'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nfw\r\n--x--\r\n'],
        ['application/x-www-form-urlencoded', 'file=fw'],
      ];
      for (const [type, body] of types) {
        it(`refuses ${type}`, async () => {
          const before = await state(acme);
          assertMessage(
            await upload('fw-acme', '?version=6.0.0&device_type=ESP32', body, { 'content-type': type }),
            415,
            'Body must be application/octet-stream',
          );
          await assertNothingLeft(acme, before);
        });
      }

      it('refuses a JSON body over 16 KiB with 415, not the device routes’ 413', async () => {
        const big = JSON.stringify({ pad: 'x'.repeat(64 * KIB) });
        assertMessage(
          await upload('fw-acme', '?version=6.0.0&device_type=ESP32', big, { 'content-type': 'application/json' }),
          415,
          'Body must be application/octet-stream',
        );
      });

      it('refuses a body without Content-Type', async () => {
        const response = await fetch(url('/tenants/fw-acme/firmware?version=6.0.0&device_type=ESP32'), {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}` },
          body: new Uint8Array(Buffer.from('firmware')),
        });
        assertMessage({ status: response.status, body: await response.json() }, 415, 'Body must be application/octet-stream');
      });

      it('reads the media type case-insensitively, with parameters', async () => {
        const answer = await upload('fw-acme', '?version=6.1.0&device_type=ESP32', Buffer.from('fw 6.1.0'), {
          'content-type': 'Application/Octet-Stream; foo=bar',
        });
        assert.equal(answer.status, 201, answer.text);
      });
    });

    describe('413 over FIRMWARE_MAX_BYTES, nothing half-written', () => {
      it('refuses a declared Content-Length over the limit at once, before a byte of the body is sent', async () => {
        const before = await state(acme);
        const answer = await rawPost(
          url('/tenants/fw-acme/firmware?version=7.0.0&device_type=ESP32'),
          { authorization: `Bearer ${bearer}`, ...OCTETS, 'content-length': String(LIMIT + 1) },
          [],
          false,
        );
        assertMessage(answer, 413, TOO_LARGE);
        assert.equal(answer.sentBeforeAnswer, 0, 'the server waited for body bytes');
        assert.equal(answer.headers['connection'], 'close', 'the connection must close: the refused body is not read');
        await assertNothingLeft(acme, before);
      });

      it('refuses a declared Content-Length far over the limit after the first body bytes', async () => {
        const before = await state(acme);
        const answer = await rawPost(
          url('/tenants/fw-acme/firmware?version=7.0.0&device_type=ESP32'),
          { authorization: `Bearer ${bearer}`, ...OCTETS, 'content-length': String(64 * MIB + 1) },
          [randomBytes(16 * KIB)],
          false,
        );
        assertMessage(answer, 413, TOO_LARGE);
        await assertNothingLeft(acme, before);
      });

      it('refuses a chunked body as soon as it crosses the limit, while the client is still sending', async () => {
        const before = await state(acme);
        // limit + 64 KiB, then the body is left open: only a server that stops at the limit answers.
        const answer = await rawPost(
          url('/tenants/fw-acme/firmware?version=7.0.0&device_type=ESP32'),
          { authorization: `Bearer ${bearer}`, ...OCTETS },
          chunksOf(LIMIT + 64 * KIB),
          false,
        );
        assertMessage(answer, 413, TOO_LARGE);
        assert.equal(answer.endedBeforeAnswer, false);
        assert.equal(answer.headers['connection'], 'close');
        await assertNothingLeft(acme, before);
      });

      it('refuses a chunked body of limit + 1 byte sent with fetch and a ReadableStream', async () => {
        const before = await state(acme);
        const chunks = chunksOf(LIMIT + 1, 128 * KIB);
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = chunks.shift();
            if (next) controller.enqueue(next);
            else controller.close();
          },
        });
        const response = await fetch(url('/tenants/fw-acme/firmware?version=7.0.0&device_type=ESP32'), {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, ...OCTETS },
          body: stream,
          duplex: 'half',
        });
        assertMessage({ status: response.status, body: await response.json() }, 413, TOO_LARGE);
        await assertNothingLeft(acme, before);
      });

      it('still publishes normally afterwards', async () => {
        const answer = await upload('fw-acme', '?version=7.0.0&device_type=ESP32', Buffer.from('7.0.0 at last'));
        assert.equal(answer.status, 201, answer.text);
      });

      it('applies the same limit to `firmledger firmware publish` (one rule, in the service)', async () => {
        const before = await state(other);
        const file = join(app.config.dataDir, 'too-large.bin');
        await writeFile(file, randomBytes(LIMIT + 1));
        const outcome = await promisify(execFile)(
          process.execPath,
          ['bin/firmledger.js', 'firmware', 'publish', file, '--tenant', 'fw-other', '--version', '7.0.0', '--type', 'ESP32'],
          {
            cwd: ROOT,
            env: { PATH: process.env['PATH'], ...app.database.env, FIRMWARE_MAX_BYTES: String(LIMIT), LOG_LEVEL: 'error' },
            timeout: 60_000,
          },
        ).then(
          () => ({ code: 0, stderr: '' }),
          (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
        );
        assert.equal(outcome.code, 1);
        assert.match(outcome.stderr, new RegExp(TOO_LARGE.replace(/[()]/g, '\\$&')));
        await assertNothingLeft(other, before);
      });
    });

    it('survives clients that go away mid-upload, before or while the body is read, and keeps nothing of them', async () => {
      const before = await state(acme);
      const target = url('/tenants/fw-acme/firmware?version=9.0.0&device_type=ESP32');
      const gone: Promise<void>[] = [];
      for (let i = 0; i < 10; i++) {
        // Declared 512 KiB, 1 KiB sent, then the socket is destroyed: mostly while the token is checked.
        const req = httpRequest(target, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, ...OCTETS, 'content-length': String(512 * KIB) },
        });
        gone.push(new Promise((done) => req.on('close', () => done())));
        req.on('error', () => undefined);
        req.write(randomBytes(KIB));
        setTimeout(() => req.destroy(), i);
      }
      // Chunked, 600 KiB sent (the service is reading by then), then the socket is destroyed.
      const reading = httpRequest(target, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, ...OCTETS } });
      gone.push(new Promise((done) => reading.on('close', () => done())));
      reading.on('error', () => undefined);
      for (const chunk of chunksOf(600 * KIB)) reading.write(chunk);
      setTimeout(() => reading.destroy(), 200);
      await Promise.all(gone);
      // The server cleans up on its own schedule: wait (bounded) until no temporary file is left.
      for (let waited = 0; (await artifacts()).some((name) => name.startsWith('.')) && waited < 5000; waited += 50) {
        await new Promise((tick) => setTimeout(tick, 50));
      }
      await assertNothingLeft(acme, before);
      const after = await upload('fw-acme', '?version=9.0.0&device_type=ESP32', Buffer.from('9.0.0'));
      assert.equal(after.status, 201, after.text);
    });

    it('answers 401 without a valid operator token, and 404 for an unknown tenant', async () => {
      const before = await state(acme);
      const anonymous = await request('POST', url('/tenants/fw-acme/firmware?version=8.0.0&device_type=ESP32'), {
        rawBody: Buffer.from('fw'),
        headers: OCTETS,
      });
      assertMessage(anonymous, 401, 'Operator token is not valid');
      const wrong = await request('POST', url('/tenants/fw-acme/firmware?version=8.0.0&device_type=ESP32'), {
        bearer: 'flo_not-a-token',
        rawBody: Buffer.from('fw'),
        headers: OCTETS,
      });
      assertMessage(wrong, 401, 'Operator token is not valid');
      assertMessage(
        await upload('no-such-tenant', '?version=8.0.0&device_type=ESP32', Buffer.from('fw')),
        404,
        'Tenant "no-such-tenant" not found',
      );
      await assertNothingLeft(acme, before);
    });
  });

  describe('device routes keep the JSON-only body parser (docs/decisions.md §3)', () => {
    it('answers 415 Body must be application/json to an octet-stream body on register', async () => {
      const token = await app.login(acme);
      const answer = await request('POST', `${app.urls.vc}/api/device/register`, { token, rawBody: Buffer.from('{}'), headers: OCTETS });
      assertMessage(answer, 415, 'Body must be application/json');
    });

    it('answers 413 to a JSON body over 16 KiB on register, as before', async () => {
      const token = await app.login(acme);
      const raw = JSON.stringify({ mac: '02:00:00:00:00:01', firmware_version: '1.0', pad: 'x'.repeat(16 * KIB) });
      const answer = await request('POST', `${app.urls.vc}/api/device/register`, {
        token,
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
      });
      assertMessage(answer, 413, 'Body is too large');
    });

    it('answers 404 Not Found to an octet-stream body on an unknown route', async () => {
      assertMessage(await request('POST', url('/no/such/route'), { bearer, rawBody: Buffer.from('x'), headers: OCTETS }), 404, 'Not Found');
    });
  });

  describe('GET /tenants/:tenant/firmware', () => {
    it('lists the tenant’s firmware oldest first, paged, with the same shape as the upload answer', async () => {
      const all = await listAll(acme);
      assert.ok(all.length >= 5, `expected several firmware, got ${all.length}`);
      assert.deepEqual(
        all.map((f) => f.id),
        [...all.map((f) => f.id)].sort((x, y) => x - y),
      );
      const page2 = await request('GET', url('/tenants/fw-acme/firmware?page=2&per_page=2'), { bearer });
      assert.equal(page2.status, 200, page2.text);
      assert.deepEqual(page2.body, { items: all.slice(2, 4), page: 2, per_page: 2, total: all.length });
      const beyond = await request('GET', url(`/tenants/fw-acme/firmware?page=99&per_page=2`), { bearer });
      assert.deepEqual(beyond.body, { items: [], page: 99, per_page: 2, total: all.length });
    });

    it('does not list another tenant’s firmware', async () => {
      const mine = new Set((await listAll(acme)).map((f) => f.id));
      for (const f of await listAll(other)) assert.ok(!mine.has(f.id));
    });

    it('answers 400 naming a bad paging parameter', async () => {
      for (const [query, message] of [
        ['per_page=0', 'per_page must be at least 1'],
        ['per_page=501', 'per_page must be at most 500'],
        ['per_page=abc', 'per_page must be a whole number'],
        ['page=0', 'page must be at least 1'],
        ['page=1.5', 'page must be a whole number'],
      ]) {
        assertMessage(await request('GET', url(`/tenants/fw-acme/firmware?${query}`), { bearer }), 400, message, query.split('=')[0]);
      }
    });

    it('answers 401 without a token and 404 for an unknown tenant', async () => {
      assertMessage(await request('GET', url('/tenants/fw-acme/firmware')), 401, 'Operator token is not valid');
      assertMessage(await request('GET', url('/tenants/nobody/firmware'), { bearer }), 404, 'Tenant "nobody" not found');
    });
  });

  describe('GET /tenants/:tenant/firmware/:id', () => {
    it('answers one firmware with md5, sha256, size, CID, version, device_type, created_at', async () => {
      const [first] = await listAll(acme);
      const answer = await request('GET', url(`/tenants/fw-acme/firmware/${first.id}`), { bearer });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, first);
      assert.equal(first.cid, HELLO_CID);
    });

    it('answers 404 Firmware not found for another tenant’s firmware and an absent one', async () => {
      const [foreign] = await listAll(other);
      assertMessage(await request('GET', url(`/tenants/fw-acme/firmware/${foreign.id}`), { bearer }), 404, 'Firmware not found');
      assertMessage(await request('GET', url('/tenants/fw-acme/firmware/999999'), { bearer }), 404, 'Firmware not found');
    });

    it('answers 400 naming id when it is not a whole number', async () => {
      for (const id of ['abc', '1.5', '-1', '0', '1e0', '0x1']) {
        assertMessage(await request('GET', url(`/tenants/fw-acme/firmware/${id}`), { bearer }), 400, /^id must be/, 'id');
      }
    });
  });
});
