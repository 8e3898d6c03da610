/**
 * The bytes the public device SDKs of the field send, rebuilt from their sources, and the checks
 * they apply to the answers. Sources (read for these helpers):
 * - asvin-io/asvin-esp32-ota-sdk: lib/Asvin/Asvin.cpp, lib/HTTPUpdate/HTTPUpdate.cpp, src/main.cpp;
 *   espressif/arduino-esp32 libraries/HTTPClient/src/HTTPClient.cpp (`sendHeader`, `sendRequest`).
 * - asvin-io/asvin-esp8266-ota-sdk: platformIO/lib/Asvin/Asvin.cpp,
 *   platformIO/lib/ESPhttpUpdate/ESP8266httpUpdate.cpp, platformIO/src/main.cpp; esp8266/Arduino
 *   2.7.4 (the core of its platformio.ini) ESP8266HTTPClient.cpp and WiFiClientSecureBearSSL.cpp.
 * - asvin-io/asvin-pycom-ota-sdk: asvin.py, main.py, lib/urequests.py, lib/OTA.py.
 */
import { isUtf8 } from 'node:buffer';
import { createHash, createHmac } from 'node:crypto';
import { binary } from './bytes.js';

/** A component URL split as the Arduino HTTPClient's `beginInternal` splits it. */
interface SplitUrl {
  host: string;
  port: number;
  /** Path with its leading `/` (`_uri`). */
  uri: string;
}

function split(url: string): SplitUrl {
  const parsed = new URL(url);
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  return { host: parsed.hostname, port, uri: parsed.pathname };
}

/** `Host:` as both HTTPClients write it: the port only when it is neither 80 nor 443. */
function hostHeader({ host, port }: SplitUrl): string {
  return port !== 80 && port !== 443 ? `${host}:${port}` : host;
}

/** What the sketch or updater set on its HTTPClient before sending. */
export interface ArduinoRequest {
  method: 'GET' | 'POST';
  url: string;
  /** `addHeader` calls, in order. */
  headers: [string, string][];
  body?: string;
  /** `useHTTP10(true)`: the updaters. It also turns keep-alive off (`_reuse = !useHTTP10`). */
  http10?: boolean;
  /** `setUserAgent`; the clients' default otherwise. */
  userAgent?: string;
}

/**
 * The request head and body arduino-esp32's HTTPClient writes (`sendHeader`): request line,
 * Host, User-Agent, Connection, Accept-Encoding (HTTP/1.1 only), the added headers in order,
 * and `Content-Length` last, added by `sendRequest` only when there is a payload.
 */
export function esp32Request(request: ArduinoRequest): string {
  const url = split(request.url);
  const headers = [...request.headers, ...(request.body ? [['Content-Length', String(Buffer.byteLength(request.body))]] : [])];
  return (
    `${request.method} ${url.uri} HTTP/1.${request.http10 ? 0 : 1}\r\n` +
    `Host: ${hostHeader(url)}\r\n` +
    `User-Agent: ${request.userAgent ?? 'ESP32HTTPClient'}\r\n` +
    `Connection: ${request.http10 ? 'close' : 'keep-alive'}\r\n` +
    (request.http10 ? '' : 'Accept-Encoding: identity;q=1,chunked;q=0.1,*;q=0\r\n') +
    headers.map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    '\r\n' +
    (request.body ?? '')
  );
}

/**
 * The request the ESP8266 core 2.7.4 HTTPClient writes (`sendHeader`): request line, Host,
 * User-Agent, Accept-Encoding (HTTP/1.1 only), Connection, the added headers in order, and
 * `Content-Length` last, which `sendRequest` always adds (0 for a GET).
 */
export function esp8266Request(request: ArduinoRequest): string {
  const url = split(request.url);
  const headers = [...request.headers, ['Content-Length', String(Buffer.byteLength(request.body ?? ''))]];
  return (
    `${request.method} ${url.uri} HTTP/1.${request.http10 ? 0 : 1}\r\n` +
    `Host: ${hostHeader(url)}\r\n` +
    `User-Agent: ${request.userAgent ?? 'ESP8266HTTPClient'}\r\n` +
    (request.http10 ? '' : 'Accept-Encoding: identity;q=1,chunked;q=0.1,*;q=0\r\n') +
    `Connection: ${request.http10 ? 'close' : 'keep-alive'}\r\n` +
    headers.map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    '\r\n' +
    (request.body ?? '')
  );
}

/**
 * A JSON document as ArduinoJson's `serializeJson` writes it: members in the order they were
 * set, no whitespace; strings and unsigned integers as JSON writes them (the values here are
 * ASCII, where both agree).
 */
export function arduinoJson(members: [string, string | number][]): string {
  return `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
}

/**
 * A dict as MicroPython's `ujson.dumps` writes it: `", "` between members and `": "` after keys.
 * Members in insertion order (MicroPython may order a dict differently; the server reads JSON by name).
 */
export function microPythonJson(members: [string, string | number][]): string {
  return `{${members.map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(', ')}}`;
}

/**
 * The request Pycom's `urequests.request` writes: HTTP/1.0, `Host` without the port, the
 * `headers` dict in order, then for `json=` a second `Content-Type: application/json` and
 * `Content-Length`.
 */
export function urequestsPost(url: string, headers: [string, string][], json: string): string {
  const { host } = split(url);
  const path = url.split('/').slice(3).join('/');
  return (
    `POST /${path} HTTP/1.0\r\n` +
    `Host: ${host}\r\n` +
    headers.map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(json)}\r\n` +
    '\r\n' +
    json
  );
}

/** The request Pycom's `OTA._http_post` writes by hand: HTTP/1.1, no `Connection` header. */
export function pycomOtaPost(url: string, token: string, cid: string): string {
  const [, , host, path] = /^(https?:)\/\/([^/]*)\/(.*)$/.exec(url)!;
  const body = microPythonJson([['cid', cid]]);
  return (
    `POST /${path} HTTP/1.1\r\nHost: ${host}\r\nx-access-token: ${token}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${body.length}\r\n\r\n${body}`
  );
}

/**
 * What Pycom's `OTA.get_data` keeps of an answer: it reads `recv(100)` pieces until the
 * connection closes, starts writing at the first piece that holds `\r\n\r\n`, from after it.
 * @returns the bytes written to `config.py.new`, or `null` when no single piece held the empty line
 *   or that piece was not UTF-8 text.
 */
export function pycomOtaBody(stream: Buffer, pieceSize = 100): Buffer | null {
  const written: Buffer[] = [];
  let writing = false;
  for (let offset = 0; offset < stream.length; offset += pieceSize) {
    let piece = stream.subarray(offset, offset + pieceSize);
    if (!writing) {
      const end = piece.indexOf('\r\n\r\n');
      if (end < 0) continue;
      // `result.decode()` raises on bytes that are not UTF-8, and the download ends without a file.
      if (!isUtf8(piece)) return null;
      writing = true;
      // `result.decode().split("\r\n\r\n")[1].encode()`: the text up to the next empty line, if any.
      const rest = piece.subarray(end + 4);
      const next = rest.indexOf('\r\n\r\n');
      piece = next < 0 ? rest : rest.subarray(0, next);
    }
    written.push(piece);
  }
  return writing ? Buffer.concat(written) : null;
}

/**
 * BearSSL's `WiFiClientSecure::setFingerprint(const char*)` of the ESP8266 core: 20 hex pairs,
 * either case, each optionally followed by spaces or colons, nothing after.
 * @returns the 20 bytes, or `null` where the device would refuse the text (and then trust nothing).
 */
export function bearSslFingerprint(text: string): Buffer | null {
  const bytes: number[] = [];
  let i = 0;
  const hex = (c: string | undefined) => (c !== undefined && /^[0-9a-fA-F]$/.test(c) ? parseInt(c, 16) : 255);
  while (bytes.length < 20) {
    if (i >= text.length) break;
    const c = hex(text[i++]);
    if (i >= text.length) return null;
    const d = hex(text[i++]);
    if (c > 15 || d > 15) return null;
    bytes.push((c << 4) | d);
    while (i < text.length && (text[i] === ' ' || text[i] === ':')) i++;
  }
  if (bytes.length !== 20 || i < text.length) return null;
  return Buffer.from(bytes);
}

/** The SHA-1 BearSSL compares a pinned fingerprint with: of the DER of the first certificate the server sends. */
export function certificateSha1(der: Buffer): Buffer {
  return createHash('sha1').update(der).digest();
}

/**
 * A small image that looks like an ESP application image to the updaters: magic byte 0xE9,
 * segment count, SPI mode DIO, then flash size 4 MiB / 40 MHz in byte 3 (the ESP8266 updater
 * compares `magicFlashChipSize(byte3 >> 4)` with the chip), an entry point, then filler.
 */
export function espImage(size: number, seed: number): Buffer {
  const image = binary(size, seed);
  image.set([0xe9, 0x03, 0x02, 0x40], 0);
  image.writeUInt32LE(0x40100000 + 0x4f8, 4);
  return image;
}

/** Flash size in bytes of the ESP8266 core's `ESP.magicFlashChipSize` for the high nibble of image byte 3. */
export function magicFlashChipSize(nibble: number): number {
  const sizes: Record<number, number> = {
    0x0: 0x80000,
    0x1: 0x40000,
    0x2: 0x100000,
    0x3: 0x200000,
    0x4: 0x400000,
    0x8: 0x800000,
    0x9: 0x1000000,
  };
  return sizes[nibble] ?? 0;
}

/**
 * The device signature as the sketches compute it (mbedTLS on the ESP32, `SHA256::hmac` on the
 * ESP8266, `hmac.new` on Pycom): HMAC-SHA256 keyed with the customer key over the decimal
 * timestamp followed by the device key, as lowercase hex. Computed here, not by the server's code.
 */
export function sketchSignature(customerKey: string, timestamp: number, deviceKey: string): string {
  return createHmac('sha256', Buffer.from(customerKey, 'utf8'))
    .update(Buffer.from(`${timestamp}${deviceKey}`, 'utf8'))
    .digest('hex');
}

/**
 * Bytes a `DynamicJsonDocument` needs to hold a flat JSON object parsed from an Arduino `String`
 * (ArduinoJson 6 on a 32-bit ESP): a 16-byte slot per member, plus a copy of each key and of each
 * string value with its terminating NUL. A document smaller than this fails with `NoMemory`.
 */
export function arduinoJsonMemory(object: Record<string, unknown>): number {
  return Object.entries(object).reduce(
    (bytes, [key, value]) => bytes + 16 + Buffer.byteLength(key) + 1 + (typeof value === 'string' ? Buffer.byteLength(value) + 1 : 0),
    0,
  );
}

/** One request of an SDK and what it got, for the record of a whole update. */
export interface Exchange {
  /** `POST /auth/login HTTP/1.1` and the component it went to. */
  request: string;
  status: number;
  /** What the SDK made of the answer. */
  outcome: string;
}

/**
 * `deserializeJson(doc, response)` into a `DynamicJsonDocument(capacity)`, as the sketches call it
 * on `http.getString()`: the object, or the line the sketch prints when it fails.
 */
export function deserializeJson(body: Buffer, capacity: number): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return 'deserializeJson() failed: InvalidInput';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'deserializeJson() failed: InvalidInput';
  if (arduinoJsonMemory(parsed as Record<string, unknown>) > capacity) return 'deserializeJson() failed: NoMemory';
  return parsed as Record<string, unknown>;
}

/** `String x = doc["key"]` (or `.as<String>()`) of ArduinoJson: a missing member is the text `null`. */
export function arduinoString(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What the ESP updaters' `handleUpdate` ends with. */
export type UpdateResult =
  { result: 'HTTP_UPDATE_OK'; flashed: Buffer } | { result: 'HTTP_UPDATE_FAILED' | 'HTTP_UPDATE_NO_UPDATES'; error: string };

/**
 * The checks of `handleUpdate` and `runUpdate`, common to the ESP8266 updater and its ESP32 port,
 * applied to the answer of the download: status 200, `Content-Length` > 0 and within the free
 * sketch space, the image header (`verifyHeader`, which differs between the two), an `x-MD5` of 32
 * characters, exactly `Content-Length` bytes read from the raw stream, and their MD5 equal to
 * `x-MD5` (`Updater::end`). 304, 403 and 404 have their own results; any other status is "Wrong HTTP Code".
 * @param verifyHeader the updater's look at the first bytes: an error text, or undefined.
 */
export function updaterResult(
  answer: { status: number; body: Buffer; header(name: string): string | undefined },
  freeSketchSpace: number,
  verifyHeader: (image: Buffer) => string | undefined,
): UpdateResult {
  const failed = (error: string): UpdateResult => ({ result: 'HTTP_UPDATE_FAILED', error });
  switch (answer.status) {
    case 200: {
      const length = answer.header('Content-Length');
      const len = length === undefined ? -1 : Number(length);
      if (!(len > 0)) return failed('Server Did Not Report Size');
      if (len > freeSketchSpace) return failed('Not Enough space');
      // The updater reads the raw stream: a transfer encoding would end up in flash.
      if (answer.header('Transfer-Encoding') !== undefined) return failed('Update error: Magic Byte Invalid');
      const headerError = verifyHeader(answer.body);
      if (headerError) return failed(headerError);
      const expectedMd5 = answer.header('x-MD5') ?? '';
      if (expectedMd5.length !== 0 && expectedMd5.length !== 32) return failed('Wrong MD5');
      if (answer.body.length !== len) return failed('Update error: Stream Read Timeout');
      if (expectedMd5 && expectedMd5.toLowerCase() !== createHash('md5').update(answer.body).digest('hex')) {
        return failed('Update error: MD5 Check Failed');
      }
      return { result: 'HTTP_UPDATE_OK', flashed: answer.body };
    }
    case 304:
      return { result: 'HTTP_UPDATE_NO_UPDATES', error: '' };
    case 404:
      return failed('File Not Found (404)');
    case 403:
      return failed('Forbidden (403)');
    default:
      return failed('Wrong HTTP Code');
  }
}

/** What the transcript keeps of a download: its size and `x-MD5`, or the message of a refusal. */
export function downloadOutcome(answer: { status: number; body: Buffer; header(name: string): string | undefined }): string {
  return answer.status === 200
    ? `${answer.header('Content-Length') ?? '(no Content-Length)'} bytes, x-MD5 ${answer.header('x-MD5') ?? '(none)'}`
    : answer.body.toString('utf8').slice(0, 160);
}

/**
 * How both ESP sketches (their main.cpp share the code) read the next-rollout answer: into a
 * `DynamicJsonDocument(1000)`, `firmware_id` and `rollout_id` as Strings; a missing `rollout_id`
 * reads `"null"`, which the sketch takes for "no rollout".
 * @returns the two ids, or the line the sketch prints.
 */
export function sketchRollout(body: Buffer): { firmwareID: string; rolloutID: string } | string {
  const rollout = deserializeJson(body, 1000);
  if (typeof rollout === 'string') return rollout;
  const rolloutID = arduinoString(rollout['rollout_id']);
  if (rolloutID === 'null') return 'No Rollout available';
  return { firmwareID: arduinoString(rollout['firmware_id']), rolloutID };
}

/** How both ESP sketches read the ledger's firmware record: `DynamicJsonDocument(500)`, a non-empty `cid`. */
export function sketchCid(body: Buffer): { cid: string } | string {
  const firmware = deserializeJson(body, 500);
  if (typeof firmware === 'string') return firmware;
  const cid = arduinoString(firmware['cid']);
  if (firmware['cid'] === undefined || cid.length === 0) return 'No CID available';
  return { cid };
}

/**
 * The URL constants of the ESP SDKs' Asvin.h, each with a base URL of this server in place of the
 * platform's host (the one change a device needs): `asvinToolsURL` is the ESP8266 SDK's only.
 */
export function asvinUrls(base: Record<'auth' | 'vc' | 'bc' | 'ipfs' | 'tools', string>) {
  return {
    registerURL: `${base.vc}/api/device/register`,
    checkRolloutURL: `${base.vc}/api/device/next/rollout`,
    checkRolloutSuccessURL: `${base.vc}/api/device/success/rollout`,
    authserverLoginURL: `${base.auth}/auth/login`,
    bcGetFirmwareURL: `${base.bc}/firmware/get`,
    ipfsDownloadURL: `${base.ipfs}/firmware/download`,
    asvinToolsURL: `${base.tools}/fingerprints`,
  };
}

/**
 * What the two Asvin Arduino sketches (ESP32, ESP8266) share: the base URLs and device
 * credentials they are built with, the URL constants of Asvin.h on those bases, and the
 * transcript of their exchanges with the server.
 */
export abstract class AsvinSketch {
  readonly transcript: Exchange[] = [];

  constructor(
    private readonly base: Record<'auth' | 'vc' | 'bc' | 'ipfs' | 'tools', string>,
    protected readonly credentials: { customerKey: string; deviceKey: string },
  ) {}

  /** The URL constants of Asvin.h, with this server's base URLs. */
  protected get urls() {
    return asvinUrls(this.base);
  }

  /** Adds one exchange to the transcript: the request line of `request`, the answer's status and `outcome`. */
  protected record(request: string, answer: { status: number }, outcome: string): void {
    this.transcript.push({ request: request.slice(0, request.indexOf('\r\n')), status: answer.status, outcome });
  }
}
