import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { FirmwareDownloadRepository } from '#src/domain/delivery/firmware-download.repository.js';
import {
  arduinoJson,
  AsvinSketch,
  arduinoString,
  deserializeJson,
  downloadOutcome,
  esp32Request,
  espImage,
  sketchCid,
  sketchRollout,
  sketchSignature,
  updaterResult,
  type UpdateResult,
} from '#test/support/field-sdks.js';
import { startFieldServer, type FieldServer } from '#test/support/field-server.js';
import type { TestTenant } from '#test/support/harness.js';
import { exchange, targetOf, type RawAnswer } from '#test/support/raw-http.js';
import { md5 } from '#test/support/bytes.js';

/** An ESP32 with 4 MiB flash and the default OTA partitions. */
type Device = typeof DEVICE;
const DEVICE = {
  mac: '24:0A:C4:12:34:56',
  apMac: '24:0A:C4:12:34:57',
  freeSketchSpace: 1_310_720,
  sketchSize: 912_384,
  chipSize: 4_194_304,
  sdkVersion: 'v4.4.7-dirty',
};

/**
 * asvin-esp32-ota-sdk as its `loop()` (src/main.cpp) runs, through lib/Asvin/Asvin.cpp and
 * lib/HTTPUpdate/HTTPUpdate.cpp, over arduino-esp32's HTTPClient and WiFiClientSecure (TLS,
 * certificate not checked). Only the base URLs in Asvin.h are changed, to this server's.
 */
class Esp32Sketch extends AsvinSketch {
  /** `firmware_version` of src/main.cpp: the version the sketch reports, whatever the image. */
  firmwareVersion = '1.0.0';

  constructor(
    base: Record<'auth' | 'vc' | 'bc' | 'ipfs' | 'tools', string>,
    credentials: { customerKey: string; deviceKey: string },
    private readonly device: Device = DEVICE,
  ) {
    super(base, credentials);
  }

  /** One pass of `loop()`; returns the last line it prints. */
  async loop(timestamp: number): Promise<string> {
    const { customerKey, deviceKey } = this.credentials;
    const deviceSignature = sketchSignature(customerKey, timestamp, deviceKey);
    const login = await this.post(
      this.urls.authserverLoginURL,
      [['Content-Type', 'application/json']],
      arduinoJson([
        ['device_key', deviceKey],
        ['device_signature', deviceSignature],
        ['timestamp', timestamp],
      ]),
    );
    const auth = deserializeJson(login.body, 1000);
    if (typeof auth === 'string') return auth;
    // `if (!doc["token"])`: the sketch does not look at the status of the login.
    if (!auth['token']) return 'Did not receive the token!!';
    const authToken = arduinoString(auth['token']);

    // `device_registered` is never set in this sketch: it registers on every loop.
    const register = await this.post(
      this.urls.registerURL,
      [
        ['Content-Type', 'application/json'],
        ['x-access-token', authToken],
      ],
      arduinoJson([
        ['name', 'demo-device'],
        ['mac', this.device.mac],
        ['firmware_version', this.firmwareVersion],
      ]),
    );
    if (register.status !== 200) return 'Device Registration Error!!';

    const next = await this.post(
      this.urls.checkRolloutURL,
      [
        ['Content-Type', 'application/json'],
        ['x-access-token', authToken],
      ],
      arduinoJson([
        ['mac', this.device.mac],
        ['firmware_version', this.firmwareVersion],
      ]),
    );
    if (next.status !== 200) return 'Next Rollout Error!!';
    const rollout = sketchRollout(next.body);
    if (typeof rollout === 'string') return rollout;
    const { firmwareID, rolloutID } = rollout;

    const record = await this.post(
      this.urls.bcGetFirmwareURL,
      [
        ['Content-Type', 'application/json'],
        ['x-access-token', authToken],
      ],
      arduinoJson([['id', firmwareID]]),
    );
    if (record.status !== 200) return 'IPFS Error!!';
    const firmware = sketchCid(record.body);
    if (typeof firmware === 'string') return firmware;

    const update = await this.downloadFirmware(authToken, firmware.cid);
    if (update.result !== 'HTTP_UPDATE_OK') return `${update.result} ${update.error}`;
    this.flashed = update.flashed;

    const success = await this.post(
      this.urls.checkRolloutSuccessURL,
      [
        ['Content-Type', 'application/json'],
        ['x-access-token', authToken],
      ],
      arduinoJson([
        ['mac', this.device.mac],
        ['firmware_version', this.firmwareVersion],
        ['rollout_id', rolloutID],
      ]),
    );
    return success.status === 200 ? '--Restart Device and Apply Update : OK' : 'Rollout Update Error!!';
  }

  /** The image the last update wrote to the OTA partition. */
  flashed: Buffer | undefined;

  /**
   * `Asvin::downloadFirmware` → `HTTPUpdate::update(client, ipfsDownloadURL, payload, token, "1.0.0")`:
   * HTTP/1.0 POST with the updater's headers, then `handleUpdate`'s checks and `runUpdate`.
   */
  private async downloadFirmware(token: string, cid: string): Promise<UpdateResult> {
    const sketchMd5 = md5(Buffer.from('running sketch'));
    const sketchSha256 = createHash('sha256').update('running sketch').digest('hex').toUpperCase();
    const url = this.urls.ipfsDownloadURL;
    const request = esp32Request({
      method: 'POST',
      url,
      http10: true,
      userAgent: 'ESP32-http-Update',
      headers: [
        ['Content-Type', 'application/json'],
        ['x-access-token', token],
        ['Cache-Control', 'no-cache'],
        ['x-ESP32-STA-MAC', this.device.mac],
        ['x-ESP32-AP-MAC', this.device.apMac],
        ['x-ESP32-free-space', String(this.device.freeSketchSpace)],
        ['x-ESP32-sketch-size', String(this.device.sketchSize)],
        ['x-ESP32-sketch-md5', sketchMd5],
        ['x-ESP32-sketch-sha256', sketchSha256],
        ['x-ESP32-chip-size', String(this.device.chipSize)],
        ['x-ESP32-sdk-version', this.device.sdkVersion],
        ['x-ESP32-mode', 'sketch'],
        ['x-ESP32-version', '1.0.0'],
      ],
      body: arduinoJson([['cid', cid]]),
    });
    const answer = await exchange(targetOf(url), request, { waitForClose: 5000 });
    this.record(request, answer, downloadOutcome(answer));
    // `tcp->peek() != 0xE9`: the ESP32 port looks at the first byte only.
    const update = updaterResult(answer, this.device.freeSketchSpace, (image) =>
      image[0] === 0xe9 ? undefined : 'Verify Bin Header Failed',
    );
    // HTTP/1.0: the server ends the connection after the body.
    if (update.result === 'HTTP_UPDATE_OK') assert.ok(answer.closedByServer, 'the server closes the HTTP/1.0 connection');
    return update;
  }

  /** `HTTPClient` POST with the headers the Asvin method adds, then `http.getString()`. */
  private async post(url: string, headers: [string, string][], body: string): Promise<RawAnswer> {
    const request = esp32Request({ method: 'POST', url, headers, body });
    const answer = await exchange(targetOf(url), request);
    this.record(request, answer, answer.body.toString('utf8').slice(0, 160));
    return answer;
  }
}

describe('the ESP32 SDK (asvin-esp32-ota-sdk), byte for byte over TLS', () => {
  let field: FieldServer;
  let tenant: TestTenant;
  const image = espImage(48 * 1024, 32);
  let firmwareId: number;
  let clockSeconds: () => number;

  before(async () => {
    field = await startFieldServer();
    const { app } = field;
    tenant = await app.createTenant('esp32 fleet', 'ESP32');
    firmwareId = (await app.publishFirmware(tenant, '1.1.0', image)).id;
    await app.createGroup(tenant, 'esp32-field', [DEVICE.mac]);
    clockSeconds = () => Math.floor(app.clock.now() / 1000);
  });
  after(() => field?.close());

  it('runs a whole update as src/main.cpp loops: no rollout, then login → register → next rollout → firmware/get → download → success', async (t) => {
    const { app } = field;
    const sketch = new Esp32Sketch(app.urls, { customerKey: tenant.customerKey, deviceKey: tenant.deviceKey });

    assert.equal(await sketch.loop(clockSeconds()), 'No Rollout available');
    const rollout = await app.createRollout(tenant, { name: 'esp32 1.1.0', firmwareId, group: 'esp32-field' });
    app.clock.advance(10);
    assert.equal(await sketch.loop(clockSeconds()), '--Restart Device and Apply Update : OK');
    assert.ok(sketch.flashed?.equals(image), 'the flashed image is the published one');

    // After the restart the new image runs; its sketch reports 1.1.0 and is offered nothing.
    sketch.firmwareVersion = '1.1.0';
    app.clock.advance(10);
    assert.equal(await sketch.loop(clockSeconds()), 'No Rollout available');

    const requests = sketch.transcript.map((e) => `${e.request} → ${e.status}`);
    const loop = (...more: string[]) => [
      'POST /auth/login HTTP/1.1 → 200',
      'POST /api/device/register HTTP/1.1 → 200',
      'POST /api/device/next/rollout HTTP/1.1 → 200',
      ...more,
    ];
    assert.deepEqual(requests, [
      ...loop(),
      ...loop(
        'POST /firmware/get HTTP/1.1 → 200',
        'POST /firmware/download HTTP/1.0 → 200',
        'POST /api/device/success/rollout HTTP/1.1 → 200',
      ),
      ...loop(),
    ]);
    assert.deepEqual(
      sketch.transcript.map((e) => e.outcome).filter((o) => o.startsWith('{"message"')),
      [
        '{"message":"Device inserted!"}',
        '{"message":"Device exists!"}',
        '{"message":"Successfully inserted!"}',
        '{"message":"Device exists!"}',
      ],
    );
    for (const e of sketch.transcript) t.diagnostic(`${e.request} → ${e.status} ${e.outcome}`);

    // The server's side: the download is the device's, the success counts.
    const [device] = await app.database.query<{ id: number }>('SELECT id FROM device WHERE mac = $1', [DEVICE.mac]);
    const downloads = await app.server.app.get(FirmwareDownloadRepository).forDevice(tenant.id, device.id);
    assert.deepEqual(
      downloads.map((d) => [d.firmwareId, d.rangeStart, d.rangeEnd, d.mac]),
      [[firmwareId, 0, image.length - 1, DEVICE.mac]],
    );
    const [success] = await app.database.query<{ n: number }>('SELECT COUNT(*) AS n FROM rollout_success WHERE rollout_id = $1', [
      rollout.id,
    ]);
    assert.equal(Number(success.n), 1);
  });

  it('gets "Forbidden (403)" and a message instead of an image that does not fit its free space', async () => {
    const { app } = field;
    const cramped = { ...DEVICE, mac: '24:0A:C4:12:34:60', apMac: '24:0A:C4:12:34:61', freeSketchSpace: image.length - 1 };
    await app.createGroup(tenant, 'esp32-cramped', [cramped.mac]);
    await app.createRollout(tenant, { name: 'esp32 1.1.0 cramped', firmwareId, group: 'esp32-cramped' });
    const sketch = new Esp32Sketch(app.urls, { customerKey: tenant.customerKey, deviceKey: tenant.deviceKey }, cramped);
    app.clock.advance(10);
    assert.equal(await sketch.loop(clockSeconds()), 'HTTP_UPDATE_FAILED Forbidden (403)');
    const download = sketch.transcript.find((e) => e.request.startsWith('POST /firmware/download'))!;
    assert.deepEqual(JSON.parse(download.outcome), {
      message: `Firmware is ${image.length} bytes; the device has ${image.length - 1} bytes free for it (x-ESP32-free-space)`,
    });
    assert.equal(sketch.flashed, undefined);
  });
});
