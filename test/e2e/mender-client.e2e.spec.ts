import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arduinoJson, esp32Request, sketchCid, sketchRollout, sketchSignature } from '#test/support/field-sdks.js';
import { openBrowser } from '#test/support/browser.js';
import { request, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import {
  buildArtifact,
  deviceKeyPair,
  startMenderClient,
  until,
  type BuiltArtifact,
  type DeviceKeyPair,
  type MenderClient,
} from '#test/support/mender-client.js';
import { runCliWithInput } from '#test/support/operator.js';
import { writeTestCertificate } from '#test/support/test-certificates.js';
import { exchange, targetOf } from '#test/support/raw-http.js';
import type { DeviceRolloutBody, RolloutBody } from '#test/support/rollouts.js';

/**
 * An update module that holds its `Download` state until `/opt/go` exists, then installs
 * `payload.bin` to `/opt/fw/held.bin`: the spec decides when the client goes on.
 */
const HOLDING_MODULE = `#!/bin/sh
set -e
case "$1" in
  NeedsArtifactReboot) echo "No" ;;
  SupportsRollback) echo "Yes" ;;
  Download) while [ ! -e /opt/go ]; do sleep 0.1; done ;;
  ArtifactInstall) mkdir -p /opt/fw && cp "$2/files/payload.bin" /opt/fw/held.bin ;;
esac
exit 0
`;

/**
 * Mender devices update from firmledger with the real client (docs/mender-devices.md): Debian's
 * `mender-client` 3.4 (`mender daemon`, update modules) configured only with the Mender
 * component's URL and a device key as its tenant token, on both engines. Each client runs in a
 * private mount namespace (test/support/mender-client.ts) and polls every second.
 */
describe('Mender devices with the real mender-client 3.4 (docs/decisions.md §13)', () => {
  let app: TestApp;
  let bearer: string;
  let work: string;
  let tenantToken: string;
  let customerKey: string;
  const tenant = `mender-${Date.now()}`;
  const deviceType = 'mender-test-board';
  const running = new Set<MenderClient>();

  const operator = (method: string, path: string, body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.operator}${path}`, { bearer, body });

  const ok = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await operator(method, path, body);
    assert.ok(answer.status === 200 || answer.status === 201, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body as Record<string, unknown>;
  };

  /** Publishes a Mender artifact (its name is the version); the firmware id. */
  const publish = async (artifact: BuiltArtifact): Promise<number> => {
    const answer = await request('POST', `${app.urls.operator}/tenants/${tenant}/firmware/mender`, {
      bearer,
      rawBody: artifact.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(answer.status, 201, answer.text);
    return (answer.body as { id: number }).id;
  };

  /** Plans and starts a rollout of `firmwareId` to a new group of `members`; its id. */
  const rollOut = async (name: string, firmwareId: number, members: string[], extra: Record<string, unknown> = {}): Promise<number> => {
    await ok('POST', `/tenants/${tenant}/groups`, { name, macs: members });
    const created = await ok('POST', `/tenants/${tenant}/rollouts`, {
      name,
      firmware_id: firmwareId,
      group: name,
      start_date: '2020-01-01 00:00:00',
      ...extra,
    });
    await ok('POST', `/tenants/${tenant}/rollouts/${String(created.id)}/start`);
    return created.id as number;
  };

  const rollout = async (id: number): Promise<RolloutBody> =>
    (await ok('GET', `/tenants/${tenant}/rollouts/${id}`)) as unknown as RolloutBody;

  /** The device's state in the rollout (with its history and log), or `undefined` while it has none. */
  const stateIn = async (mac: string, rolloutId: number): Promise<MenderRolloutBody | undefined> => {
    const answer = await operator('GET', `/tenants/${tenant}/devices/${mac}/rollouts`);
    if (answer.status !== 200) return undefined;
    return (answer.body as MenderRolloutBody[]).find((row) => row.rollout_id === rolloutId);
  };

  /** Waits until the device is in `state` in the rollout; its state row. The client's log is shown on a timeout. */
  const reaches = (mac: string, rolloutId: number, state: string, client?: MenderClient, timeoutMs = 45_000): Promise<MenderRolloutBody> =>
    until(
      `${mac} ${state} in rollout ${rolloutId}`,
      async () => {
        const row = await stateIn(mac, rolloutId);
        return row?.state === state ? row : undefined;
      },
      timeoutMs,
      () => `its client's log ends:\n${client?.output().slice(-3000) ?? '(no client)'}`,
    );

  /** Starts a client for the device with mac `mac` in its own directory. */
  const device = (
    mac: string,
    key: DeviceKeyPair | undefined,
    extra: { token?: string; modules?: Record<string, string>; artifactName?: string } = {},
  ): MenderClient => {
    const name = mac.replaceAll(':', '');
    const client = startMenderClient({
      workDir: join(work, name),
      serverUrl: app.urls.mender,
      tenantToken: extra.token ?? tenantToken,
      deviceType,
      identity: { mac, serial: `SN-${name}` },
      inventory: { hostname: `board-${name}`, kernel: 'test' },
      privateKey: key?.privateKey,
      modules: extra.modules,
      artifactName: extra.artifactName,
      logFile: join(work, `${name}.log`),
    });
    running.add(client);
    return client;
  };

  const stop = async (client: MenderClient): Promise<void> => {
    await client.stop();
    running.delete(client);
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('mender-client-spec');
    work = mkdtempSync(join(tmpdir(), 'firmledger-mender-'));
    customerKey = (await ok('POST', '/tenants', { name: tenant })).customer_key as string;
    tenantToken = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType })).key as string;
  });

  after(async () => {
    await Promise.all([...running].map((client) => client.stop()));
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('a preauthorized device installs the rollout and ends confirmed, its inventory kept', async () => {
    const mac = '02:4D:00:00:00:01';
    const key = deviceKeyPair('ec');
    const preauthorized = await ok('POST', `/tenants/${tenant}/device-auth-sets`, { mac, public_key: key.publicKey });
    assert.deepEqual([preauthorized.identifier, preauthorized.status, preauthorized.key_type], [mac, 'preauthorized', 'ec']);
    const artifact = buildArtifact(work, { name: 'release-1', deviceTypes: [deviceType] });
    const rolloutId = await rollOut('preauthorized', await publish(artifact), [mac]);

    const client = device(mac, key);
    const confirmed = await reaches(mac, rolloutId, 'confirmed', client);
    assert.deepEqual(
      confirmed.history.map((h) => h.state),
      ['pending', 'offered', 'downloading', 'installed', 'confirmed'],
      'offered by next, downloading, installed on `installing`, confirmed by `success` after the commit',
    );
    assert.equal(
      readFileSync(client.opt('fw/release-1.txt')).toString('utf8'),
      artifact.payload.toString('utf8'),
      'the payload is installed',
    );
    // The client sends its inventory again after the deployment: the new artifact name.
    const shown = await until('the inventory after the update', async () => {
      const body = await ok('GET', `/tenants/${tenant}/devices/${mac}`);
      return (body.attributes as Record<string, string> | null)?.['artifact_name'] === 'release-1' ? body : undefined;
    });
    await stop(client);
    assert.deepEqual([shown.protocol, shown.device_type, shown.firmware_version], ['mender', deviceType, 'release-1']);
    const attributes = shown.attributes as Record<string, string>;
    assert.equal(attributes['hostname'], 'board-024D00000001', 'its inventory script’s attributes');
    assert.equal(attributes['device_type'], deviceType);
    assert.match(attributes['mender_client_version'] ?? '', /^3\.4/);
    const done = await rollout(rolloutId);
    assert.deepEqual([done.status, done.devices['confirmed']], ['finished', 1]);
    const sets = (await ok('GET', `/tenants/${tenant}/device-auth-sets`)).items as {
      identifier: string;
      status: string;
      id_data: unknown;
    }[];
    assert.deepEqual(
      sets.find((s) => s.identifier === mac),
      { ...sets.find((s) => s.identifier === mac), status: 'accepted', id_data: { mac, serial: 'SN-024D00000001' } },
      'accepted on its first request, with the identity the device sent',
    );
  });

  it('a device on an artifact name that orders after the new one is skipped by default, and updates under offer_when different', async () => {
    const mac = '02:4D:00:00:00:08';
    const key = deviceKeyPair('ec');
    await ok('POST', `/tenants/${tenant}/device-auth-sets`, { mac, public_key: key.publicKey });
    const artifact = buildArtifact(work, { name: 'fw-2.0', deviceTypes: [deviceType] });
    const firmwareId = await publish(artifact);
    // `fw-2.0` orders before `harness-initial-1.0` (by code points): anti-rollback skips the device.
    const newer = await rollOut('names-newer', firmwareId, [mac]);
    const client = device(mac, key, { artifactName: 'harness-initial-1.0' });
    const skipped = await reaches(mac, newer, 'skipped', client);
    assert.match(skipped.failure_message ?? '', /anti-rollback: runs harness-initial-1\.0, which orders after fw-2\.0/);
    assert.equal((await rollout(newer)).status, 'finished', 'a skipped device does not hold the rollout open');

    const different = await rollOut('names-different', firmwareId, [mac], { offer_when: 'different' });
    await reaches(mac, different, 'confirmed', client);
    await stop(client);
    assert.equal(readFileSync(client.opt('fw/fw-2.0.txt')).toString('utf8'), artifact.payload.toString('utf8'), 'the payload is installed');
    assert.equal((await rollout(different)).status, 'finished');
  });

  it('a pending device waits, is accepted in the console where its key fingerprint is shown, then updates', async () => {
    const mac = '02:4D:00:00:00:02';
    const key = deviceKeyPair('rsa');
    const rolloutId = await rollOut('accepted', await publish(buildArtifact(work, { name: 'release-2', deviceTypes: [deviceType] })), [
      mac,
    ]);
    const client = device(mac, key);
    const pending = await until('the pending auth set', async () => {
      const page = (await ok('GET', `/tenants/${tenant}/device-auth-sets?status=pending`)).items as Record<string, unknown>[];
      return page.find((s) => s['identifier'] === mac);
    });
    assert.equal(pending.key_type, 'rsa');
    assert.equal(pending.device_type, deviceType, 'the type of the device key its tenant token named');
    assert.match(pending.fingerprint as string, /^[0-9a-f]{64}$/);
    const fingerprint = createHash('sha256')
      .update(createPublicKey(key.publicKey).export({ type: 'spki', format: 'der' }))
      .digest('hex');
    assert.equal(pending.fingerprint, fingerprint, 'the fingerprint of the device’s own key');
    assert.equal((await operator('GET', `/tenants/${tenant}/devices/${mac}`)).status, 404, 'not a device while pending');

    // An admin accepts it in the console's list of devices waiting to be accepted.
    const created = await runCliWithInput(app, 'console-password-1\n', 'operator-user', 'create', 'mender-admin', '--role', 'admin');
    assert.equal(created.code, 0, created.stderr);
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await page.goto(`${app.urls.operator}/mender-devices?tenant=${tenant}`);
      await page.getByLabel('Username').fill('mender-admin');
      await page.getByLabel('Password').fill('console-password-1');
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Mender devices' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: mac });
      await row.getByTitle(fingerprint).waitFor();
      await row.getByRole('button', { name: `Accept ${mac}` }).click();
      await page.getByText('No device is waiting.').waitFor();
      assert.deepEqual(browser.errors, []);
    } finally {
      await browser.close();
    }
    await reaches(mac, rolloutId, 'confirmed', client);
    await stop(client);
    assert.equal(readFileSync(client.opt('fw/release-2.txt')).toString('utf8').split('\n')[0], 'release-2');
  });

  it('an artifact whose payload does not match its manifest ends failed, with the client’s log shown', async () => {
    const mac = '02:4D:00:00:00:03';
    const key = deviceKeyPair('ed25519');
    await ok('POST', `/tenants/${tenant}/device-auth-sets`, { mac, public_key: key.publicKey });
    const broken = buildArtifact(work, { name: 'release-3', deviceTypes: [deviceType], broken: true });
    const rolloutId = await rollOut('broken', await publish(broken), [mac]);

    const client = device(mac, key);
    const failed = await reaches(mac, rolloutId, 'failed', client);
    const withLog = await until('the deployment log', async () => {
      const row = await stateIn(mac, rolloutId);
      return row?.deployment_log ? row : undefined;
    });
    await stop(client);
    assert.equal(failed.history.at(-1)?.message, 'the Mender client reported failure');
    assert.match(withLog.failure_message ?? '', /invalid checksum/, 'the failure message is the log’s error line');
    const errors = withLog.deployment_log!.messages.filter((m) => m.level === 'error').map((m) => m.message);
    assert.ok(
      errors.some((m) => /release-3\.txt.*invalid checksum/.test(m)),
      `the client’s error names the payload file: ${errors.join('\n')}`,
    );
    assert.ok(!existsSync(client.opt('fw/release-3.txt')), 'nothing was installed');
    const done = await rollout(rolloutId);
    assert.deepEqual([done.status, done.devices['failed']], ['finished', 1], 'its one device failed: the rollout is over');
  });

  it('a rollout cancelled during the download answers 409 to the next status report: the client stops, the device is pending again', async () => {
    const mac = '02:4D:00:00:00:04';
    const key = deviceKeyPair('ec');
    await ok('POST', `/tenants/${tenant}/device-auth-sets`, { mac, public_key: key.publicKey });
    const artifact = buildArtifact(work, { name: 'release-4', deviceTypes: [deviceType], type: 'holding' });
    const rolloutId = await rollOut('cancelled', await publish(artifact), [mac]);

    const client = device(mac, key, { modules: { holding: HOLDING_MODULE } });
    await reaches(mac, rolloutId, 'downloading', client);
    await ok('POST', `/tenants/${tenant}/rollouts/${rolloutId}/cancel`);
    writeFileSync(client.opt('go'), ''); // the module goes on; the client reports `downloading` at the end of its store
    const withdrawn = await reaches(mac, rolloutId, 'pending', client);
    await until(
      'the client to take the 409',
      async () => /deployment aborted at the backend/.test(client.output()),
      15_000,
      () => client.output().slice(-3000),
    );
    await stop(client);
    assert.match(withdrawn.history.at(-1)?.message ?? '', /answered 409/);
    assert.ok(!existsSync(client.opt('fw/held.bin')), 'nothing was installed');
  });

  it('updates over TLS from a Mender component on a listener it shares with another component', async () => {
    const certificate = await writeTestCertificate(work, 'mender-tls');
    const tls = await startTestApp(
      { TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile },
      // At the root: the 3.4 client's local proxy serves only `/api/devices/…` (decisions.md §13).
      { AUTH_URL: 'https://127.0.0.1:{port0}/auth', MENDER_URL: 'https://127.0.0.1:{port0}' },
    );
    let client: MenderClient | undefined;
    try {
      assert.equal(new URL(tls.urls.mender).port, new URL(tls.urls.auth).port, 'one listener');
      const token = await tls.createOperatorToken();
      const op = async (path: string, body?: unknown, raw?: Buffer) => {
        const answer = await request('POST', `${tls.urls.operator}${path}`, {
          bearer: token,
          ...(raw ? { rawBody: raw, headers: { 'content-type': 'application/octet-stream' } } : { body }),
        });
        assert.ok(answer.status < 300, `${path}: ${answer.status} ${answer.text}`);
        return answer.body as Record<string, unknown>;
      };
      await op('/tenants', { name: 'tls' });
      const key = (await op('/tenants/tls/device-keys', { device_type: deviceType, auto_accept: true })).key as string;
      const artifact = buildArtifact(work, { name: 'release-tls', deviceTypes: [deviceType] });
      const firmware = await op('/tenants/tls/firmware/mender', undefined, artifact.bytes);
      const mac = '02:4D:00:00:00:07';
      await op('/tenants/tls/groups', { name: 'tls', macs: [mac] });
      const created = await op('/tenants/tls/rollouts', {
        name: 'tls',
        firmware_id: firmware.id,
        group: 'tls',
        start_date: '2020-01-01 00:00:00',
      });
      await op(`/tenants/tls/rollouts/${String(created.id)}/start`);

      client = startMenderClient({
        workDir: join(work, 'tls-device'),
        serverUrl: tls.urls.mender,
        tenantToken: key,
        deviceType,
        identity: { mac },
        privateKey: deviceKeyPair('ec').privateKey,
        serverCertificate: certificate.cert,
        logFile: join(work, 'tls-device.log'),
      });
      const seen = client;
      await until(
        'the device confirmed over TLS',
        async () => {
          const answer = await request('GET', `${tls.urls.operator}/tenants/tls/devices/${mac}/rollouts`, { bearer: token });
          return answer.status === 200 && (answer.body as { state: string }[])[0]?.state === 'confirmed';
        },
        45_000,
        () => seen.output().slice(-3000),
      );
      assert.match(
        client.output(),
        /https:\/\/127\.0\.0\.1:\d+\/api\/devices\/v1\/deployments\/download\//,
        'the signed link is an https one',
      );
      assert.equal(readFileSync(client.opt('fw/release-tls.txt')).toString('utf8'), artifact.payload.toString('utf8'));
    } finally {
      await client?.stop();
      await tls.close();
    }
  });

  it('two Mender devices and two ESP32 devices pass one rollout’s waves', async () => {
    const autoKey = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType, auto_accept: true })).key as string;
    const esp32Key = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType })).key as string;
    const esp32 = [new Esp32(app, customerKey, esp32Key, '24:0A:C4:4D:00:01'), new Esp32(app, customerKey, esp32Key, '24:0A:C4:4D:00:02')];
    const menders = ['02:4D:00:00:00:05', '02:4D:00:00:00:06'];
    // Devices in id order, one of each kind per wave: ESP32, Mender, ESP32, Mender.
    const clients: MenderClient[] = [];
    for (const [index, mac] of menders.entries()) {
      assert.equal(await esp32[index].loop(), 'No Rollout available');
      clients.push(device(mac, deviceKeyPair('ec'), { token: autoKey }));
      await until(
        `${mac} accepted at once by its device key`,
        async () => (await operator('GET', `/tenants/${tenant}/devices/${mac}`)).status === 200,
      );
    }
    const artifact = buildArtifact(work, { name: '2.0.0', deviceTypes: [deviceType] });
    const rolloutId = await rollOut('waves', await publish(artifact), [...esp32.map((e) => e.mac), ...menders], {
      waves: ['50%', '100%'],
      success_threshold: 1,
    });

    await reaches(menders[0], rolloutId, 'confirmed', clients[0]);
    assert.equal(await esp32[0].loop(), 'updated');
    assert.equal(esp32[0].flashed?.equals(artifact.bytes), true, 'the ESP32 fetched the rollout’s bytes');
    assert.equal((await stateIn(esp32[0].mac, rolloutId))?.state, 'installed', 'the ESP32 SDK reports success before its reboot');
    assert.equal((await stateIn(menders[1], rolloutId))?.state, 'pending', 'the Mender device of wave 2 waits');
    assert.equal(await esp32[0].loop('2.0.0'), 'No Rollout available', 'after its reboot it runs 2.0.0');
    await reaches(esp32[0].mac, rolloutId, 'confirmed');
    assert.equal((await rollout(rolloutId)).current_wave, 2, 'wave 1 passed its threshold: wave 2 started');

    await reaches(menders[1], rolloutId, 'confirmed', clients[1]);
    assert.equal(await esp32[1].loop(), 'updated');
    assert.equal(await esp32[1].loop('2.0.0'), 'No Rollout available');
    await Promise.all(clients.map(stop));
    const done = await rollout(rolloutId);
    assert.deepEqual([done.status, done.devices['confirmed'], done.waves.map((w) => w.status)], ['finished', 4, ['passed', 'passed']]);
  });
});

/** A device's state in a rollout with the deployment log the operator API shows. */
interface MenderRolloutBody extends DeviceRolloutBody {
  deployment_log: { received_at: string; messages: { level: string; message: string; timestamp: string }[] } | null;
}

/**
 * An ESP32 of the field SDK (asvin-esp32-ota-sdk) over plain HTTP, its `loop()` as
 * test/e2e/field-esp32.e2e.spec.ts replays it byte for byte: login, register, next rollout,
 * firmware lookup, download by CID with the updater's headers (the bytes checked against
 * `x-MD5`, as its updater does), success report with the version it ran before.
 */
class Esp32 {
  flashed: Buffer | undefined;

  constructor(
    private readonly app: TestApp,
    private readonly customerKey: string,
    private readonly deviceKey: string,
    readonly mac: string,
  ) {}

  /** One pass of the sketch's loop on `version`: `No Rollout available`, `updated`, or what went wrong. */
  async loop(version = '1.0.0'): Promise<string> {
    const timestamp = Math.floor(this.app.clock.now() / 1000);
    const login = await this.post(`${this.app.urls.auth}/auth/login`, [
      ['device_key', this.deviceKey],
      ['device_signature', sketchSignature(this.customerKey, timestamp, this.deviceKey)],
      ['timestamp', timestamp],
    ]);
    const token = (JSON.parse(login.toString('utf8')) as { token?: string }).token;
    if (!token) return 'Did not receive the token!!';
    await this.post(
      `${this.app.urls.vc}/api/device/register`,
      [
        ['name', 'demo-device'],
        ['mac', this.mac],
        ['firmware_version', version],
      ],
      token,
    );
    const rollout = sketchRollout(
      await this.post(
        `${this.app.urls.vc}/api/device/next/rollout`,
        [
          ['mac', this.mac],
          ['firmware_version', version],
        ],
        token,
      ),
    );
    if (typeof rollout === 'string') return rollout;
    const firmware = sketchCid(await this.post(`${this.app.urls.bc}/firmware/get`, [['id', rollout.firmwareID]], token));
    if (typeof firmware === 'string') return firmware;
    const url = `${this.app.urls.ipfs}/firmware/download`;
    const download = await exchange(
      targetOf(url),
      esp32Request({
        method: 'POST',
        url,
        http10: true,
        userAgent: 'ESP32-http-Update',
        headers: [
          ['Content-Type', 'application/json'],
          ['x-access-token', token],
          ['x-ESP32-STA-MAC', this.mac],
          ['x-ESP32-free-space', '1310720'],
          ['x-ESP32-version', version],
        ],
        body: arduinoJson([['cid', firmware.cid]]),
      }),
      { waitForClose: 5000 },
    );
    const md5 = createHash('md5').update(download.body).digest('hex');
    if (download.status !== 200 || download.header('x-MD5') !== md5) return `download failed: ${download.status}`;
    this.flashed = download.body;
    await this.post(
      `${this.app.urls.vc}/api/device/success/rollout`,
      [
        ['mac', this.mac],
        ['firmware_version', version],
        ['rollout_id', rollout.rolloutID],
      ],
      token,
    );
    return 'updated';
  }

  /** An HTTPClient POST of the sketch: JSON as ArduinoJson writes it; the answer's body. */
  private async post(url: string, members: [string, string | number][], token?: string): Promise<Buffer> {
    const headers: [string, string][] = [
      ['Content-Type', 'application/json'],
      ...(token ? [['x-access-token', token] as [string, string]] : []),
    ];
    const answer = await exchange(targetOf(url), esp32Request({ method: 'POST', url, headers, body: arduinoJson(members) }));
    return answer.body;
  }
}
