import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseFetcher, Updater } from 'tuf-js';
import { DownloadHTTPError } from 'tuf-js/dist/error.js';
import { get, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCli } from '#test/support/operator.js';

/** tuf-js's fetcher with the device token, as a device's TUF client sends it to the IPFS component. */
class DeviceFetcher extends BaseFetcher {
  constructor(
    private readonly token: string,
    /** Answers to serve instead of the server's, by URL: what a mirror or a man in the middle could replay. */
    private readonly replayed = new Map<string, string>(),
  ) {
    super();
  }

  async fetch(url: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
    const replay = this.replayed.get(url);
    if (replay !== undefined) return new Response(replay).body as ReadableStream<Uint8Array<ArrayBuffer>>;
    const response = await fetch(url, { headers: { 'X-Access-Token': this.token } });
    if (!response.ok || !response.body) throw new DownloadHTTPError('Failed to download', response.status);
    return response.body as ReadableStream<Uint8Array<ArrayBuffer>>;
  }
}

describe('signed update metadata (TUF) checked by a real tuf-js Updater', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let dir: string;
  const image = Buffer.from('TUF-verified firmware image\n'.repeat(64));
  let cid: string;

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('tuf', 'ESP32');
    cid = (await app.publishFirmware(tenant, '1.0.0', image)).cid;
    token = await app.login(tenant);
    dir = await mkdtemp(join(tmpdir(), 'firmledger-tuf-'));
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A device's TUF client: trusts root version 1 (fetched once, as it would be provisioned) and keeps its metadata in `name`. */
  async function client(name: string, as = token, replayed?: Map<string, string>): Promise<Updater> {
    const metadataDir = join(dir, name, 'metadata');
    const targetDir = join(dir, name, 'targets');
    await import('node:fs/promises').then((fs) =>
      Promise.all([fs.mkdir(metadataDir, { recursive: true }), fs.mkdir(targetDir, { recursive: true })]),
    );
    const rootFile = join(metadataDir, 'root.json');
    const existing = await readFile(rootFile).catch(() => null);
    if (!existing) {
      const root = await get(`${app.urls.ipfs}/tuf/1.root.json`, as);
      assert.equal(root.status, 200, root.text);
      await writeFile(rootFile, root.text);
    }
    return new Updater({
      metadataDir,
      metadataBaseUrl: `${app.urls.ipfs}/tuf`,
      targetDir,
      targetBaseUrl: `${app.urls.ipfs}/ipfs`,
      fetcher: new DeviceFetcher(as, replayed),
    });
  }

  it('fetches, verifies and downloads a firmware target', async () => {
    const updater = await client('device-a');
    await updater.refresh();
    const target = await updater.getTargetInfo(cid);
    assert.ok(target, 'the firmware is a target');
    assert.deepEqual(target.custom, { version: '1.0.0', firmware_id: 1 });
    assert.equal(target.length, image.length);
    const file = await updater.downloadTarget(target, join(dir, 'device-a', 'firmware.bin'));
    assert.deepEqual(await readFile(file), image);
  });

  let firstTimestamp: string;

  it('serves growing versions: a new firmware makes new targets, snapshot and timestamp', async () => {
    firstTimestamp = (await get(`${app.urls.ipfs}/tuf/timestamp.json`, token)).text;
    const before = JSON.parse(firstTimestamp) as { signed: { version: number } };
    await app.publishFirmware(tenant, '1.0.1', Buffer.from('second image'));
    const after = JSON.parse((await get(`${app.urls.ipfs}/tuf/timestamp.json`, token)).text) as {
      signed: { version: number; expires: string };
    };
    assert.equal(after.signed.version, before.signed.version + 1);
    assert.ok(Date.parse(after.signed.expires) > Date.now(), 'it expires in the future');
    const updater = await client('device-a');
    await updater.refresh();
    assert.ok(await updater.getTargetInfo(cid));
    assert.deepEqual((await get(`${app.urls.ipfs}/tuf/nothing.json`, token)).body, { message: 'TUF metadata not found' });
    assert.equal((await get(`${app.urls.ipfs}/tuf/timestamp.json`)).status, 401);
  });

  it('refuses a timestamp whose version went back (an older one the server signed, replayed)', async () => {
    const cached = JSON.parse(await readFile(join(dir, 'device-a', 'metadata', 'timestamp.json'), 'utf8')) as {
      signed: { version: number };
    };
    assert.ok(cached.signed.version >= 2);
    assert.equal((JSON.parse(firstTimestamp) as { signed: { version: number } }).signed.version, cached.signed.version - 1);
    const updater = await client('device-a', token, new Map([[`${app.urls.ipfs}/tuf/timestamp.json`, firstTimestamp]]));
    await assert.rejects(updater.refresh(), /New timestamp version \d+ is less than current version \d+/);
    await (await client('device-a')).refresh(); // the server's own answer is still accepted
  });

  it('refuses the target when its bytes were altered on disk', async () => {
    const updater = await client('device-b');
    await updater.refresh();
    const target = await updater.getTargetInfo(cid);
    assert.ok(target);
    const file = join(app.config.dataDir, 'artifacts', cid);
    const altered = Buffer.from(image);
    altered[10] ^= 0xff;
    await chmod(file, 0o644);
    await writeFile(file, altered);
    await assert.rejects(updater.downloadTarget(target, join(dir, 'device-b', 'firmware.bin')), /hash|length|mismatch/i);
  });

  it('moves a client to a rotated root key, the new root signed by the old and the new key', async () => {
    const other = await app.createDeviceKey(tenant, 'ESP8266');
    const otherToken = await app.login(other);
    const updater = await client('device-c', otherToken);
    await updater.refresh();
    const rotated = await runCli(app, 'tuf', 'rotate-root');
    assert.equal(rotated.code, 0, rotated.stderr);
    const root2 = JSON.parse((await get(`${app.urls.ipfs}/tuf/2.root.json`, otherToken)).text) as {
      signatures: unknown[];
      signed: { version: number };
    };
    assert.equal(root2.signed.version, 2);
    assert.equal(root2.signatures.length, 2, 'signed by the old and the new root key');
    await (await client('device-c', otherToken)).refresh();
    const trusted = JSON.parse(await readFile(join(dir, 'device-c', 'metadata', 'root.json'), 'utf8')) as { signed: { version: number } };
    assert.equal(trusted.signed.version, 2, 'the client now trusts root version 2');
  });

  it('refuses metadata past its expiry', async () => {
    const late = await app.createDeviceKey(tenant, 'PYCOM');
    const lateToken = await app.login(late);
    const now = app.clock.ms;
    app.clock.ms = now - 3 * 86_400_000; // signed three days ago: the timestamp (valid one day) has expired
    try {
      const updater = await client('device-d', lateToken);
      await assert.rejects(updater.refresh(), /expired/i);
    } finally {
      app.clock.ms = now;
    }
  });
});
