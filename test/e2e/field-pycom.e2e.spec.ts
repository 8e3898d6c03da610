import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { FirmwareDownloadRepository } from '#src/domain/delivery/firmware-download.repository.js';
import { microPythonJson, pycomOtaBody, pycomOtaPost, sketchSignature, urequestsPost, type Exchange } from '#test/support/field-sdks.js';
import { startFieldServer, type FieldServer } from '#test/support/field-server.js';
import type { TestTenant } from '#test/support/harness.js';
import { exchange, targetOf, type RawAnswer } from '#test/support/raw-http.js';

/** `ubinascii.hexlify(machine.unique_id(), ':').decode()` of a WiPy: its WLAN mac, lowercase. */
const MAC = '24:0a:c4:c2:7a:10';

/** The port lib/OTA.py connects to for an https:// URL, whatever the URL says. */
const OTA_HTTPS_PORT = 443;

/**
 * What the Pycom OTA code replaces: a MicroPython file that starts with `path=` and `version =`
 * (the SDK's README), served as the firmware.
 */
const NEW_CONFIG = Buffer.from(
  [
    'path="/flash/config.py"',
    'version = "0.0.2"',
    '"""',
    'Asvin OTA Config File',
    '"""',
    'firmware_version="0.0.4"',
    'LED_ERROR = 0xff0000',
    'LED_blink_WIFI = 0x0000ff',
    'LED_SLEEP = 0x00ff00',
    ...Array.from({ length: 60 }, (_, i) => `setting_${i} = ${i * 7}  # filler so the file spans many recv(100) pieces`),
    '',
  ].join('\n'),
);

/**
 * asvin-pycom-ota-sdk as main.py runs it, through asvin.py, lib/urequests.py and lib/OTA.py.
 * The URLs of config.py point at this server; the IPFS one names no port (OTA.py uses 443).
 */
class PycomDevice {
  readonly transcript: Exchange[] = [];
  /** `pycom.nvs_get("rolloutid")`: survives the reset. */
  nvsRolloutId: string | undefined;
  /** `/flash/config.py` after the update. */
  configPy: Buffer | undefined;
  /** The head of the answer OTA.py read, up to and including the empty line. */
  otaHead = '';
  private authToken = '';
  private firmwareId = '';
  private cid = '';

  constructor(
    private readonly config: Record<
      'auth' | 'register' | 'checkRollout' | 'checkRolloutSuccess' | 'bc_GetFirmware' | 'ipfs_Download',
      string
    >,
    private readonly credentials: { customerKey: string; deviceKey: string },
    /** Where OTA.py's socket goes: 443, unless this machine cannot bind it (see the spec). */
    private readonly otaPort: number,
  ) {}

  /** `asvinPlatform.auth()`. */
  async auth(timestamp: number): Promise<boolean> {
    const { customerKey, deviceKey } = this.credentials;
    const body = microPythonJson([
      ['device_key', deviceKey],
      ['device_signature', sketchSignature(customerKey, timestamp, deviceKey)],
      ['timestamp', timestamp],
    ]);
    const response = await this.urequests(this.config.auth, [['Content-Type', 'application/json']], body);
    const token = (json(response) as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') return false;
    this.authToken = token;
    return true;
  }

  /** `asvinPlatform.checkRolloutSuccess()` (main.py carries the call commented out). */
  async checkRolloutSuccess(): Promise<void> {
    if (!this.nvsRolloutId) return;
    await this.urequests(
      this.config.checkRolloutSuccess,
      this.tokenHeaders(),
      microPythonJson([
        ['mac', MAC],
        ['firmware_version', '1.0.0'],
        ['rollout_id', this.nvsRolloutId],
      ]),
    );
  }

  /** `asvinPlatform.registerDevice()`: no name. */
  async registerDevice(): Promise<number> {
    const response = await this.urequests(
      this.config.register,
      this.tokenHeaders(),
      microPythonJson([
        ['mac', MAC],
        ['firmware_version', '1.0.0'],
      ]),
    );
    return response.status;
  }

  /** `asvinPlatform.checkRollout()`: true when the answer holds `rollout_id`. */
  async checkRollout(): Promise<boolean> {
    const response = await this.urequests(
      this.config.checkRollout,
      this.tokenHeaders(),
      microPythonJson([
        ['mac', MAC],
        ['firmware_version', '1.0.0'],
      ]),
    );
    if (response.status !== 200) return false;
    const next = json(response) as Record<string, string>;
    if (!('rollout_id' in next)) return false;
    this.nvsRolloutId = next['rollout_id'];
    this.firmwareId = next['firmware_id'];
    return true;
  }

  /** `asvinPlatform.getUpdate()`. */
  async getUpdate(): Promise<boolean> {
    const response = await this.urequests(this.config.bc_GetFirmware, this.tokenHeaders(), microPythonJson([['id', this.firmwareId]]));
    const cid = (json(response) as { cid?: unknown }).cid;
    if (typeof cid !== 'string') return false;
    this.cid = cid;
    return response.status === 200;
  }

  /**
   * `asvinPlatform.doUpdate()`: a urequests POST whose answer is never read (its socket stays
   * open), then `OTA(...).update()`: a POST by hand on a TLS socket to port 443, `recv(100)`
   * until the server closes, the body written to `config.py.new`, then renamed and reset.
   */
  async doUpdate(): Promise<void> {
    const [unread, target] = await this.urequestsHeadOnly(
      this.config.ipfs_Download,
      this.tokenHeaders(),
      microPythonJson([['cid', this.cid]]),
    );
    try {
      const request = pycomOtaPost(this.config.ipfs_Download, this.authToken, this.cid);
      const stream = await readUntilClosed(target.host, this.otaPort, request);
      const head = stream.subarray(0, stream.indexOf('\r\n\r\n') + 4).toString('latin1');
      this.otaHead = head;
      this.transcript.push({
        request: request.slice(0, request.indexOf('\r\n')),
        status: Number(head.split(' ')[1]),
        outcome: `${stream.length} bytes until the server closed`,
      });
      const written = pycomOtaBody(stream);
      assert.ok(written, 'a recv(100) piece holds the end of the head');
      this.configPy = written;
    } finally {
      unread.destroy();
    }
  }

  private tokenHeaders(): [string, string][] {
    return [
      ['Content-Type', 'application/json'],
      ['x-access-token', this.authToken],
    ];
  }

  /** `urequests.post(url, json=…, headers=…)` and `.json()`: reads the answer until the server closes. */
  private async urequests(url: string, headers: [string, string][], body: string): Promise<RawAnswer> {
    const request = urequestsPost(url, headers, body);
    const answer = await exchange(targetOf(url), request, { waitForClose: 5000 });
    this.transcript.push({
      request: request.slice(0, request.indexOf('\r\n')),
      status: answer.status,
      outcome: answer.body.toString('utf8').slice(0, 160),
    });
    // `Response.content` reads to the end of the stream: HTTP/1.0 answers must end with the connection.
    assert.ok(answer.closedByServer, `${request.slice(0, request.indexOf('\r\n'))}: the server closes the HTTP/1.0 connection`);
    assert.equal(answer.header('Transfer-Encoding'), undefined, 'urequests refuses chunked answers');
    return answer;
  }

  /** `urequests.post` whose answer is not read past the status line and headers; the socket is left open. */
  private async urequestsHeadOnly(url: string, headers: [string, string][], body: string) {
    const request = urequestsPost(url, headers, body);
    const target = targetOf(url);
    const socket = connect({ host: target.host, port: target.port, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write(request, 'latin1');
    const head = await new Promise<string>((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (!text.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        socket.pause();
        resolve(text.slice(0, text.indexOf('\r\n\r\n')));
      };
      socket.on('data', onData).once('error', reject);
    });
    this.transcript.push({
      request: request.slice(0, request.indexOf('\r\n')),
      status: Number(head.split(' ')[1]),
      outcome: 'status and headers read, body left unread',
    });
    return [socket, target] as const;
  }
}

function json(answer: RawAnswer): unknown {
  return JSON.parse(answer.body.toString('utf8'));
}

/** A TLS socket as OTA.py opens it (`ussl.wrap_socket`, no certificate check): everything until the server closes. */
async function readUntilClosed(host: string, port: number, request: string): Promise<Buffer> {
  const socket = connect({ host, port, servername: host === '127.0.0.1' ? undefined : host, rejectUnauthorized: false });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(request, 'latin1');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the server did not close the connection within 10 s: OTA.py would wait for ever')),
      10_000,
    );
    socket.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  socket.destroy();
  return Buffer.concat(chunks);
}

describe('the Pycom SDK (asvin-pycom-ota-sdk), byte for byte over TLS, its OTA download on port 443', () => {
  let field: FieldServer;
  let tenant: TestTenant;
  let firmwareId: number;
  let otaPort = OTA_HTTPS_PORT;
  let portNote = '';

  before(async () => {
    try {
      // OTA.py connects to 443 whatever the URL says: the IPFS component listens there when this
      // machine lets the spec bind it (as root, port free).
      field = await startFieldServer({ IPFS_URL: `https://127.0.0.1:${OTA_HTTPS_PORT}` });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EADDRINUSE') throw error;
      field = await startFieldServer();
      otaPort = Number(new URL(field.app.urls.ipfs).port);
      portNote = `port 443 could not be bound here (${code}): OTA.py's socket was pointed at ${otaPort} instead, nothing else changed`;
    }
    tenant = await field.app.createTenant('pycom fleet', 'WiPy');
    // The sketch reports 1.0.0 whatever its config.py says: the rollout's version must order after it.
    firmwareId = (await field.app.publishFirmware(tenant, '1.1.0', NEW_CONFIG)).id;
    await field.app.createGroup(tenant, 'pycom-field', ['24:0A:C4:C2:7A:10']);
  });
  after(() => field?.close());

  it('runs main.py through a whole update: auth, register, next rollout, firmware/get, download, OTA over TLS, success after the reset', async (t) => {
    t.diagnostic(portNote || `the IPFS component listens on 127.0.0.1:${OTA_HTTPS_PORT}, where OTA.py connects`);
    const { app } = field;
    const seconds = () => Math.floor(app.clock.now() / 1000);
    const ipfs = otaPort === 443 ? 'https://127.0.0.1' : app.urls.ipfs;
    const config = {
      auth: `${app.urls.auth}/auth/login`,
      register: `${app.urls.vc}/api/device/register`,
      checkRollout: `${app.urls.vc}/api/device/next/rollout`,
      checkRolloutSuccess: `${app.urls.vc}/api/device/success/rollout`,
      bc_GetFirmware: `${app.urls.bc}/firmware/get`,
      ipfs_Download: `${ipfs}/firmware/download`,
    };
    const device = new PycomDevice(config, { customerKey: tenant.customerKey, deviceKey: tenant.deviceKey }, otaPort);

    // main.py, first pass: no rollout yet.
    assert.equal(await device.auth(seconds()), true);
    assert.equal(await device.registerDevice(), 200);
    assert.equal(await device.checkRollout(), false);

    const rollout = await app.createRollout(tenant, { name: 'pycom config 1.1.0', firmwareId, group: 'pycom-field' });
    app.clock.advance(10);
    assert.equal(await device.auth(seconds()), true);
    assert.equal(await device.registerDevice(), 200);
    assert.equal(await device.checkRollout(), true);
    assert.equal(device.nvsRolloutId, String(rollout.id));
    assert.equal(await device.getUpdate(), true);
    await device.doUpdate();
    assert.ok(device.configPy?.equals(NEW_CONFIG), 'config.py after the update is the published file');
    // OTA.py finds the end of the head only inside one recv(100) piece. The head's length varies
    // with the digits of Content-Length alone: the end must land inside a piece for every size.
    const digits = String(NEW_CONFIG.length).length;
    const fixed = device.otaHead.length - digits;
    for (let d = 1; d <= 10; d++) {
      assert.ok(
        ![1, 2, 3].includes((fixed + d) % 100),
        `a head of ${fixed + d} bytes (a ${d}-digit size) ends across two recv(100) pieces`,
      );
    }

    // After machine.reset(): the success report main.py carries (commented out), then no rollout.
    app.clock.advance(10);
    assert.equal(await device.auth(seconds()), true);
    await device.checkRolloutSuccess();
    assert.equal(await device.registerDevice(), 200);
    assert.equal(await device.checkRollout(), false);

    const transcript = device.transcript.map((e) => `${e.request} → ${e.status}`);
    const pass = (...more: string[]) => [
      'POST /auth/login HTTP/1.0 → 200',
      ...more,
      'POST /api/device/register HTTP/1.0 → 200',
      'POST /api/device/next/rollout HTTP/1.0 → 200',
    ];
    assert.deepEqual(transcript, [
      ...pass(),
      ...pass(),
      'POST /firmware/get HTTP/1.0 → 200',
      'POST /firmware/download HTTP/1.0 → 200',
      'POST /firmware/download HTTP/1.1 → 200',
      ...pass('POST /api/device/success/rollout HTTP/1.0 → 200'),
    ]);
    assert.deepEqual(
      device.transcript.filter((e) => e.outcome.startsWith('{"message"')).map((e) => e.outcome),
      [
        '{"message":"Device inserted!"}',
        '{"message":"Device exists!"}',
        '{"message":"Successfully inserted!"}',
        '{"message":"Device exists!"}',
      ],
    );
    for (const e of device.transcript) t.diagnostic(`${e.request} → ${e.status} ${e.outcome}`);

    // Pycom sends no updater headers: its two downloads are the device key's, without a device.
    const [{ n }] = await app.database.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM firmware_download WHERE firmware_id = $1 AND device_key_id = $2 AND device_id IS NULL',
      [firmwareId, tenant.deviceKeyId],
    );
    assert.equal(Number(n), 2);
    const [registered] = await app.database.query<{ id: number; name: string }>('SELECT id, name FROM device WHERE mac = $1', [
      '24:0A:C4:C2:7A:10',
    ]);
    assert.equal(registered.name, '24:0A:C4:C2:7A:10', 'registered without a name: the mac is its name');
    assert.deepEqual(await app.server.app.get(FirmwareDownloadRepository).forDevice(tenant.id, registered.id), []);
  });
});
