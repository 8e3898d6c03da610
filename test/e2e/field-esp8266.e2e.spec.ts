import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FirmwareDownloadRepository } from '#src/domain/delivery/firmware-download.repository.js';
import {
  arduinoJson,
  AsvinSketch,
  arduinoString,
  bearSslFingerprint,
  certificateSha1,
  deserializeJson,
  downloadOutcome,
  esp8266Request,
  espImage,
  magicFlashChipSize,
  sketchCid,
  sketchRollout,
  sketchSignature,
  updaterResult,
  type ArduinoRequest,
  type UpdateResult,
} from '#test/support/field-sdks.js';
import { startFieldServer, type FieldServer } from '#test/support/field-server.js';
import type { TestTenant } from '#test/support/harness.js';
import { exchange, targetOf, type RawAnswer } from '#test/support/raw-http.js';
import { md5 } from '#test/support/bytes.js';

/** A NodeMCU v2 (ESP8266, 4 MiB flash). */
const DEVICE = {
  mac: '5C:CF:7F:0A:0B:0C',
  apMac: '5E:CF:7F:0A:0B:0C',
  chipId: '658188',
  freeSketchSpace: 1_044_464,
  sketchSize: 356_128,
  flashChipRealSize: 4_194_304,
  sdkVersion: '2.2.2-dev(38a443e)',
};

/** `signature payload` of src/main.cpp: `char payloadBuf[42]`, timestamp digits then the device key, NUL-terminated. */
const PAYLOAD_BUFFER_BYTES = 42;

/** A TLS connection refused by BearSSL: the pinned fingerprint did not match, or none could be set. */
class PinRefused extends Error {}

/**
 * asvin-esp8266-ota-sdk as its `loop()` (platformIO/src/main.cpp) runs, through
 * platformIO/lib/Asvin/Asvin.cpp and platformIO/lib/ESPhttpUpdate/ESP8266httpUpdate.cpp, over the
 * ESP8266 core 2.7.4 HTTPClient and BearSSL: the tools call without checking the certificate
 * (`setInsecure`), every other call pinned to the fingerprint the tools call gave
 * (`setFingerprint`). Only the URL constants of Asvin.h are changed, to this server's.
 */
class Esp8266Sketch extends AsvinSketch {
  firmwareVersion = '1.0.0';
  deviceRegistered = false;
  flashed: Buffer | undefined;
  private readonly fingerprints = { auth: '', vc: '', bc: '', ipfs: '' };

  /** One pass of `loop()`; returns the last line it prints. */
  async loop(timestamp: number): Promise<string> {
    const { customerKey, deviceKey } = this.credentials;
    const signed = `${timestamp}${deviceKey}`;
    assert.ok(signed.length < PAYLOAD_BUFFER_BYTES, `timestamp + device key (${signed.length} characters) fit the sketch's 42-byte buffer`);
    const deviceSignature = sketchSignature(customerKey, timestamp, deviceKey);

    if (!(await this.getFingerprints())) return 'Fingerprint error';

    const login = await this.pinned('auth', {
      method: 'POST',
      url: this.urls.authserverLoginURL,
      headers: [['Content-Type', 'application/json']],
      body: arduinoJson([
        ['device_key', deviceKey],
        ['device_signature', deviceSignature],
        ['timestamp', timestamp],
      ]),
    });
    const auth = deserializeJson(login.body, 1000);
    if (typeof auth === 'string') return auth;
    if (login.status !== 200) return 'OAuth Error!!';
    const authToken = arduinoString(auth['token']);
    const json = [
      ['Content-Type', 'application/json'],
      ['x-access-token', authToken],
    ] satisfies [string, string][];

    if (!this.deviceRegistered) {
      const register = await this.pinned('vc', {
        method: 'POST',
        url: this.urls.registerURL,
        headers: json,
        body: arduinoJson([
          ['mac', DEVICE.mac],
          ['firmware_version', this.firmwareVersion],
          ['name', 'esp-8266-demo'],
        ]),
      });
      if (register.status !== 200) return 'Device Registration Error!!';
    }
    this.deviceRegistered = true;

    const next = await this.pinned('vc', {
      method: 'POST',
      url: this.urls.checkRolloutURL,
      headers: json,
      body: arduinoJson([
        ['mac', DEVICE.mac],
        ['firmware_version', this.firmwareVersion],
      ]),
    });
    if (next.status !== 200) return 'Next Rollout Error!!';
    const rollout = sketchRollout(next.body);
    if (typeof rollout === 'string') return rollout;
    const { firmwareID, rolloutID } = rollout;

    const record = await this.pinned('bc', {
      method: 'POST',
      url: this.urls.bcGetFirmwareURL,
      headers: json,
      body: arduinoJson([['id', firmwareID]]),
    });
    if (record.status !== 200) return 'IPFS Error!!';
    const firmware = sketchCid(record.body);
    if (typeof firmware === 'string') return firmware;

    const update = await this.downloadFirmware(authToken, firmware.cid);
    if (update.result !== 'HTTP_UPDATE_OK') return `${update.result} ${update.error}`;
    this.flashed = update.flashed;

    const success = await this.pinned('vc', {
      method: 'POST',
      url: this.urls.checkRolloutSuccessURL,
      headers: json,
      body: arduinoJson([
        ['mac', DEVICE.mac],
        ['firmware_version', this.firmwareVersion],
        ['rollout_id', rolloutID],
      ]),
    });
    return success.status === 200 ? '--Restart Device and Apply Update : OK' : 'Rollout Update Error!!';
  }

  /** `Asvin::getFingerprints`: GET without checking the certificate; on 200 it keeps `doc["bc"]`… as text. */
  private async getFingerprints(): Promise<boolean> {
    const url = this.urls.asvinToolsURL;
    const request = esp8266Request({ method: 'GET', url, headers: [] });
    const answer = await exchange(targetOf(url), request);
    this.record(request, answer, answer.body.toString('utf8'));
    if (answer.status === 200) {
      const doc = deserializeJson(answer.body, 500);
      if (typeof doc === 'string') return false;
      this.fingerprints.bc = arduinoString(doc['bc']);
      this.fingerprints.ipfs = arduinoString(doc['ipfs']);
      this.fingerprints.vc = arduinoString(doc['vc']);
      this.fingerprints.auth = arduinoString(doc['oauth']);
    }
    return true;
  }

  /**
   * A call over `BearSSL::WiFiClientSecure` with `setFingerprint(fingerprint<component>)`: the
   * handshake fails, before a byte of HTTP, unless the SHA-1 of the server's certificate is the
   * pinned one. Then `http.POST(payload)` and `http.getString()`.
   */
  private async pinned(component: keyof Esp8266Sketch['fingerprints'], request: ArduinoRequest): Promise<RawAnswer> {
    const bytes = esp8266Request(request);
    const answer = await exchange(targetOf(request.url), bytes, { onCertificate: (der) => this.checkPin(component, der) });
    this.record(bytes, answer, answer.body.toString('utf8').slice(0, 160));
    return answer;
  }

  private checkPin(component: keyof Esp8266Sketch['fingerprints'], der: Buffer): void {
    const pin = bearSslFingerprint(this.fingerprints[component]);
    if (!pin)
      throw new PinRefused(`setFingerprint refuses ${JSON.stringify(this.fingerprints[component])}: no trust anchor, no connection`);
    if (!pin.equals(certificateSha1(der))) throw new PinRefused(`${component}: certificate does not match the pinned fingerprint`);
  }

  /**
   * `Asvin::downloadFirmware` → `ESPhttpUpdate.update(*client, ipfsDownloadURL, payload, token, "1.0.0")`,
   * pinned to the IPFS fingerprint, then `handleUpdate`'s checks and `runUpdate`.
   */
  private async downloadFirmware(token: string, cid: string): Promise<UpdateResult> {
    const url = this.urls.ipfsDownloadURL;
    const request = esp8266Request({
      method: 'POST',
      url,
      http10: true,
      userAgent: 'ESP8266-http-Update',
      headers: [
        ['Content-Type', 'application/json'],
        ['x-access-token', token],
        ['x-ESP8266-Chip-ID', DEVICE.chipId],
        ['x-ESP8266-STA-MAC', DEVICE.mac],
        ['x-ESP8266-AP-MAC', DEVICE.apMac],
        ['x-ESP8266-free-space', String(DEVICE.freeSketchSpace)],
        ['x-ESP8266-sketch-size', String(DEVICE.sketchSize)],
        ['x-ESP8266-sketch-md5', md5(Buffer.from('running sketch'))],
        ['x-ESP8266-chip-size', String(DEVICE.flashChipRealSize)],
        ['x-ESP8266-sdk-version', DEVICE.sdkVersion],
        ['x-ESP8266-mode', 'sketch'],
        ['x-ESP8266-version', '1.0.0'],
      ],
      body: arduinoJson([['cid', cid]]),
    });
    const answer = await exchange(targetOf(url), request, { waitForClose: 5000, onCertificate: (der) => this.checkPin('ipfs', der) });
    this.record(request, answer, downloadOutcome(answer));
    const update = updaterResult(answer, DEVICE.freeSketchSpace, (image) => {
      // `peekBytes(&buf[0], 4)`: a flash image (0xE9) or a gzipped one (0x1f); an image must fit the chip.
      if (image.length < 4 || (image[0] !== 0xe9 && image[0] !== 0x1f)) return 'Verify Bin Header Failed';
      if (image[0] === 0xe9 && magicFlashChipSize(image[3] >> 4) > DEVICE.flashChipRealSize) return 'New Binary Does Not Fit Flash Size';
      return undefined;
    });
    if (update.result === 'HTTP_UPDATE_OK') assert.ok(answer.closedByServer, 'the server closes the HTTP/1.0 connection');
    return update;
  }
}

describe('the ESP8266 SDK (asvin-esp8266-ota-sdk), byte for byte over pinned TLS', () => {
  let field: FieldServer;
  let tenant: TestTenant;
  const image = espImage(40 * 1024, 8266);
  let firmwareId: number;

  before(async () => {
    field = await startFieldServer();
    const { app } = field;
    tenant = await app.createTenant('esp8266 fleet', 'ESP8266');
    // The sketch signs `timestamp + device key` in a 42-byte buffer: the key as the server made it must fit.
    assert.ok(tenant.deviceKey.length <= 31, `device key of ${tenant.deviceKey.length} characters`);
    firmwareId = (await app.publishFirmware(tenant, '1.1.0', image)).id;
    await app.createGroup(tenant, 'esp8266-field', [DEVICE.mac]);
  });
  after(() => field?.close());

  it('runs a whole update as platformIO/src/main.cpp loops: fingerprints, then every call pinned', async (t) => {
    const { app } = field;
    const seconds = () => Math.floor(app.clock.now() / 1000);
    const sketch = new Esp8266Sketch(app.urls, { customerKey: tenant.customerKey, deviceKey: tenant.deviceKey });

    assert.equal(await sketch.loop(seconds()), 'No Rollout available');
    await app.createRollout(tenant, { name: 'esp8266 1.1.0', firmwareId, group: 'esp8266-field' });
    app.clock.advance(10);
    assert.equal(await sketch.loop(seconds()), '--Restart Device and Apply Update : OK');
    assert.ok(sketch.flashed?.equals(image), 'the flashed image is the published one');

    // The restarted device runs the new image: registration is again the first loop's.
    const restarted = new Esp8266Sketch(app.urls, { customerKey: tenant.customerKey, deviceKey: tenant.deviceKey });
    restarted.firmwareVersion = '1.1.0';
    app.clock.advance(10);
    assert.equal(await restarted.loop(seconds()), 'No Rollout available');

    const transcript = [...sketch.transcript, ...restarted.transcript];
    const loop = (...more: string[]) => [
      'GET /fingerprints HTTP/1.1 → 200',
      'POST /auth/login HTTP/1.1 → 200',
      ...more,
      'POST /api/device/next/rollout HTTP/1.1 → 200',
    ];
    const register = 'POST /api/device/register HTTP/1.1 → 200';
    assert.deepEqual(
      transcript.map((e) => `${e.request} → ${e.status}`),
      [
        ...loop(register),
        ...loop(),
        'POST /firmware/get HTTP/1.1 → 200',
        'POST /firmware/download HTTP/1.0 → 200',
        'POST /api/device/success/rollout HTTP/1.1 → 200',
        ...loop(register),
      ],
    );
    for (const e of transcript) t.diagnostic(`${e.request} → ${e.status} ${e.outcome}`);

    const { certificates } = field;
    assert.deepEqual(JSON.parse(transcript[0].outcome), {
      oauth: certificates.shared.sha1Fingerprint,
      vc: certificates.shared.sha1Fingerprint,
      bc: certificates.shared.sha1Fingerprint,
      ipfs: certificates.ipfs.sha1Fingerprint,
    });
    const [device] = await app.database.query<{ id: number }>('SELECT id FROM device WHERE mac = $1', [DEVICE.mac]);
    const downloads = await app.server.app.get(FirmwareDownloadRepository).forDevice(tenant.id, device.id);
    assert.deepEqual(
      downloads.map((d) => [d.firmwareId, d.rangeEnd + 1, d.mac]),
      [[firmwareId, image.length, DEVICE.mac]],
    );
  });
});
