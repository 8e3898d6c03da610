import type { IncomingMessage } from 'node:http';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import type { ChainDeviceRecord, ChainFirmwareRecord } from '#src/protocols/asvin/chain/dto/chain-record.dto.js';
import type { RolloutResponse } from '#src/protocols/asvin/rollout/dto/rollout.dto.js';
import { endpoint, segment, type DeviceTransport, type JsonAnswer } from './http-transport.js';
import type { SimulationStep } from './summary.js';

/** A step's unexpected answer: ends the device's cycle and counts one failure for `step`. */
export class StepFailure extends Error {
  constructor(
    readonly step: SimulationStep,
    reason: string,
  ) {
    super(reason);
    this.name = 'StepFailure';
  }
}

/** Component base URLs. */
export interface Endpoints {
  auth: URL;
  vc: URL;
  bc: URL;
  ipfs: URL;
}

/** Outcome of one login attempt. */
export type LoginAnswer = { token: string } | { retryAfterSeconds: number | undefined };

const ROLLOUT_FIELDS = ['rollout_id', 'rollout_name', 'priority', 'start_date', 'version', 'firmware_id'] as const;

/** Short description of an unexpected answer: status and message (or the start of the body). */
export function describeAnswer(answer: JsonAnswer): string {
  const detail = messageOf(answer) ?? answer.text.replace(/\s+/g, ' ').slice(0, 120);
  return `HTTP ${answer.status}${detail ? ` ${detail}` : ''}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(answer: JsonAnswer): string | undefined {
  return isRecord(answer.body) && typeof answer.body.message === 'string' ? answer.body.message : undefined;
}

/**
 * Seconds to wait after a 429: `Retry-After` (seconds or HTTP date), else `X-RateLimit-Reset`
 * (epoch seconds), else undefined.
 */
export function retryAfterSeconds(headers: Record<string, string | string[] | undefined>, nowMs: number): number | undefined {
  const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
  const retryAfter = first(headers['retry-after'])?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - nowMs) / 1000));
  }
  const reset = first(headers['x-ratelimit-reset'])?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) - Math.floor(nowMs / 1000));
  return undefined;
}

/**
 * One device's calls to the components, as a field ESP32 makes them. Each method checks
 * the answer and throws {@link StepFailure} for the step when it is not what a device expects;
 * connection errors and timeouts propagate as plain errors (the caller attributes them to the step).
 */
export class DeviceClient {
  private token: string | undefined;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly transport: DeviceTransport,
  ) {}

  /**
   * `POST {auth}/auth/login` with the field SDK signature. Keeps the token for the other calls.
   * @returns the token, or the wait a 429 asks for.
   */
  async login(customerKey: string, deviceKey: string, timestamp: number): Promise<LoginAnswer> {
    const answer = await this.transport.sendJson({
      method: 'POST',
      url: endpoint(this.endpoints.auth, '/auth/login'),
      json: {
        device_key: deviceKey,
        timestamp,
        device_signature: deviceSignature(customerKey, String(timestamp), deviceKey),
      },
    });
    if (answer.status === 429) return { retryAfterSeconds: retryAfterSeconds(answer.headers, Date.now()) };
    const token = isRecord(answer.body) ? answer.body.token : undefined;
    if (answer.status !== 200 || typeof token !== 'string' || token === '') {
      throw new StepFailure('login', describeAnswer(answer));
    }
    this.token = token;
    return { token };
  }

  /** `POST {vc}/api/device/register`; `Device inserted!` and `Device exists!` are both fine. */
  async register(mac: string, firmwareVersion: string, name: string): Promise<string> {
    const answer = await this.post('/api/device/register', { mac, firmware_version: firmwareVersion, name });
    const message = messageOf(answer);
    if (answer.status !== 200 || (message !== 'Device inserted!' && message !== 'Device exists!')) {
      throw new StepFailure('register', describeAnswer(answer));
    }
    return message;
  }

  /**
   * `POST {vc}/api/device/next/rollout`.
   * @returns the offered rollout, or null when the answer has no `rollout_id` (up to date).
   */
  async nextRollout(mac: string, firmwareVersion: string): Promise<RolloutResponse | null> {
    const answer = await this.post('/api/device/next/rollout', { mac, firmware_version: firmwareVersion });
    if (answer.status !== 200 || !isRecord(answer.body)) throw new StepFailure('next-rollout', describeAnswer(answer));
    const body = answer.body;
    if (!('rollout_id' in body)) return null;
    const bad = ROLLOUT_FIELDS.filter((field) => typeof body[field] !== 'string' || body[field] === '');
    if (bad.length > 0) {
      throw new StepFailure('next-rollout', `rollout with missing or non-string ${bad.join(', ')}: ${answer.text.slice(0, 200)}`);
    }
    return Object.fromEntries(ROLLOUT_FIELDS.map((field) => [field, body[field]])) as unknown as RolloutResponse;
  }

  /** `POST {bc}/firmware/get` with `{"id"}`, as the field SDKs look firmware up → `{md, cid, version}`, all strings. */
  async firmwareRecord(firmwareId: string): Promise<ChainFirmwareRecord> {
    const answer = await this.transport.sendJson({
      method: 'POST',
      url: endpoint(this.endpoints.bc, '/firmware/get'),
      token: this.requireToken(),
      json: { id: firmwareId },
    });
    const body = answer.body;
    if (
      answer.status !== 200 ||
      !isRecord(body) ||
      typeof body.md !== 'string' ||
      typeof body.cid !== 'string' ||
      typeof body.version !== 'string'
    ) {
      throw new StepFailure('ledger-lookup', `firmware ${firmwareId}: ${describeAnswer(answer)}`);
    }
    return { md: body.md, cid: body.cid, version: body.version };
  }

  /** `GET {bc}/device/{mac}` → `{mac, fwId, dType}`, all strings. */
  async deviceRecord(mac: string): Promise<ChainDeviceRecord> {
    const answer = await this.get(endpoint(this.endpoints.bc, `/device/${segment(mac)}`));
    const body = answer.body;
    if (
      answer.status !== 200 ||
      !isRecord(body) ||
      typeof body.mac !== 'string' ||
      typeof body.fwId !== 'string' ||
      typeof body.dType !== 'string'
    ) {
      throw new StepFailure('ledger-lookup', `device ${mac}: ${describeAnswer(answer)}`);
    }
    return { mac: body.mac, fwId: body.fwId, dType: body.dType };
  }

  /**
   * `POST {ipfs}/firmware/download` with `{"cid"}` and the token, as the ESP32 updater asks,
   * with its `x-ESP32-STA-MAC` so the download is attributed to the device.
   * @returns the 200 response, whose body the caller streams.
   */
  async download(cid: string, mac: string): Promise<IncomingMessage> {
    const response = await this.transport.send({
      method: 'POST',
      url: endpoint(this.endpoints.ipfs, '/firmware/download'),
      token: this.requireToken(),
      json: { cid },
      headers: { 'x-ESP32-STA-MAC': mac },
    });
    if (response.statusCode !== 200) {
      response.resume();
      throw new StepFailure('download', `HTTP ${response.statusCode} for firmware ${cid}`);
    }
    return response;
  }

  /** `POST {vc}/api/device/success/rollout`; `Successfully inserted!` and `Existing Record` are fine. */
  async reportSuccess(mac: string, version: string, rolloutId: string): Promise<string> {
    const answer = await this.post('/api/device/success/rollout', { mac, firmware_version: version, rollout_id: rolloutId });
    const message = messageOf(answer);
    if (answer.status !== 200 || (message !== 'Successfully inserted!' && message !== 'Existing Record')) {
      throw new StepFailure('report-success', describeAnswer(answer));
    }
    return message;
  }

  /**
   * `POST {vc}/api/device/failure/rollout` (docs/decisions.md §10); `Failure recorded` and
   * `Existing Record` are fine.
   */
  async reportFailure(mac: string, version: string, rolloutId: string, message: string): Promise<string> {
    const answer = await this.post('/api/device/failure/rollout', { mac, firmware_version: version, rollout_id: rolloutId, message });
    const text = messageOf(answer);
    if (answer.status !== 200 || (text !== 'Failure recorded' && text !== 'Existing Record')) {
      throw new StepFailure('report-failure', describeAnswer(answer));
    }
    return text;
  }

  /** `GET {vc}/api/device/{mac}` → the version the server has for the device (`firmware-version`). */
  async storedVersion(mac: string): Promise<string> {
    const answer = await this.get(endpoint(this.endpoints.vc, `/api/device/${segment(mac)}`));
    const version = isRecord(answer.body) ? answer.body['firmware-version'] : undefined;
    if (answer.status !== 200 || typeof version !== 'string') throw new StepFailure('register', describeAnswer(answer));
    return version;
  }

  private post(path: string, json: unknown): Promise<JsonAnswer> {
    return this.transport.sendJson({ method: 'POST', url: endpoint(this.endpoints.vc, path), token: this.requireToken(), json });
  }

  private get(url: URL): Promise<JsonAnswer> {
    return this.transport.sendJson({ method: 'GET', url, token: this.requireToken() });
  }

  private requireToken(): string {
    if (this.token === undefined) throw new Error('not logged in');
    return this.token;
  }
}
