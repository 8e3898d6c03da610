import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { computeDigests } from '#src/domain/firmware/firmware-digest.js';
import { DeviceClient, StepFailure, type Endpoints } from './device-client.js';
import type { DeviceTransport } from './http-transport.js';
import type { SimulationStep } from './summary.js';

/** Longest wait a 429's `Retry-After` is honoured for; longer asks count as a login failure. */
export const MAX_RETRY_AFTER_SECONDS = 120;

/**
 * How a simulated device's update ends: `ok` (the new image boots), `fall-back` (it reports
 * success, then its bootloader goes back to the old image), `fail` (it sends a failure report),
 * `silent` (it downloads and verifies the image, then is heard of no more: no report; a rollout's
 * `downloading` timeout later marks it `timed_out`, docs/decisions.md §10.2).
 */
export type UpdateFate = 'ok' | 'fall-back' | 'fail' | 'silent';

/** One simulated device. */
export interface SimulatedDevice {
  mac: string;
  name: string;
  /** Version it runs before updating (when the server has it registered: the version the server has). */
  firmwareVersion: string;
  /** How its update ends; default `ok`. */
  fate?: UpdateFate;
}

/**
 * A device's fate, the same on every run: a hash of its mac, as a share in [0, 1), below
 * `failRate` fails, below `failRate + fallbackRate` falls back, below
 * `failRate + fallbackRate + silentRate` goes silent; the rest update. Pure.
 */
export function fateOf(mac: string, failRate: number, fallbackRate: number, silentRate = 0): UpdateFate {
  const share = createHash('sha256').update(mac).digest().readUInt32BE(0) / 2 ** 32;
  if (share < failRate) return 'fail';
  if (share < failRate + fallbackRate) return 'fall-back';
  return share < failRate + fallbackRate + silentRate ? 'silent' : 'ok';
}

/** What a cycle needs from the run. */
export interface CycleContext {
  endpoints: Endpoints;
  customerKey: string;
  deviceKey: string;
}

/**
 * How a device's cycle ended. `up-to-date`: the next-rollout answer was the documented empty one
 * (`{}`): nothing for it now (no rollout, or one held back by a ramp, a closed window or a wave
 * not started, docs/decisions.md §10.1); such a device polls again in a later round.
 */
export type CycleOutcome =
  | { kind: 'updated'; version: string }
  | { kind: 'fell-back' }
  | { kind: 'reported-failure' }
  | { kind: 'silent' }
  | { kind: 'up-to-date' }
  | { kind: 'failed'; step: SimulationStep; reason: string };

/** Steps whose failure comes after the next-rollout answer named a rollout (the device was offered it). */
const STEPS_AFTER_OFFER: readonly SimulationStep[] = ['ledger-lookup', 'download', 'verify', 'report-success', 'report-failure', 'confirm'];

/** Whether the device was offered a rollout in this cycle (whatever happened next). Pure. */
export function wasOffered(outcome: CycleOutcome): boolean {
  if (outcome.kind === 'up-to-date') return false;
  return outcome.kind !== 'failed' || STEPS_AFTER_OFFER.includes(outcome.step);
}

/**
 * Whether the device polls again in a later round: only when it was told there is nothing for it
 * now (`up-to-date`). Updated, failed, fallen-back and silent devices are done. Pure.
 */
export function pollsAgain(outcome: CycleOutcome): boolean {
  return outcome.kind === 'up-to-date';
}

/**
 * One device's cycle, as a field ESP32 runs it: login, register (a device the server already has
 * runs the version the server has for it), next rollout, ledger lookups, download, verify (MD5
 * and CID), report success with the version it ran (the ESP32 reports before its reboot), then
 * after the "reboot" ask for the next rollout again on the new version, which confirms the update
 * (docs/decisions.md §10). A device whose fate is `fall-back` asks again on its old version;
 * one whose fate is `fail` sends a failure report instead of the success report; one whose fate is
 * `silent` sends no report at all after its download. Never throws: the first unexpected answer,
 * connection error or timeout ends the cycle as a failure of the step it happened in.
 */
export async function runDeviceCycle(device: SimulatedDevice, context: CycleContext, transport: DeviceTransport): Promise<CycleOutcome> {
  const client = new DeviceClient(context.endpoints, transport);
  let step: SimulationStep = 'login';
  try {
    await login(client, context);

    step = 'register';
    const registered = await client.register(device.mac, device.firmwareVersion, device.name);
    const running = registered === 'Device exists!' ? await client.storedVersion(device.mac) : device.firmwareVersion;

    step = 'next-rollout';
    const rollout = await client.nextRollout(device.mac, running);
    if (rollout === null) return { kind: 'up-to-date' };

    step = 'ledger-lookup';
    const firmware = await client.firmwareRecord(rollout.firmware_id);
    if (firmware.version !== rollout.version) {
      throw new StepFailure(
        step,
        `firmware ${rollout.firmware_id} is version ${firmware.version} on the ledger, rollout ${rollout.rollout_id} says ${rollout.version}`,
      );
    }
    const record = await client.deviceRecord(device.mac);
    if (record.mac !== device.mac) throw new StepFailure(step, `ledger device record is for ${record.mac}, not ${device.mac}`);

    step = 'download';
    await downloadAndVerify(client, firmware.cid, firmware.md, device.mac);

    if (device.fate === 'silent') return { kind: 'silent' };
    if (device.fate === 'fail') {
      step = 'report-failure';
      await client.reportFailure(device.mac, running, rollout.rollout_id, 'simulated: the new image failed its self-test');
      return { kind: 'reported-failure' };
    }
    step = 'report-success';
    await client.reportSuccess(device.mac, running, rollout.rollout_id);

    step = 'confirm';
    if (device.fate === 'fall-back') {
      await client.nextRollout(device.mac, running);
      return { kind: 'fell-back' };
    }
    await client.nextRollout(device.mac, rollout.version);
    return { kind: 'updated', version: rollout.version };
  } catch (error) {
    if (error instanceof StepFailure) return { kind: 'failed', step: error.step, reason: error.message };
    return { kind: 'failed', step, reason: errorText(error) };
  }
}

/**
 * Login with the current time, as a field device does (devices sharing a key may send
 * byte-identical logins, docs/decisions.md §4); after a 429, waits as asked once and tries again.
 */
async function login(client: DeviceClient, context: CycleContext): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const answer = await client.login(context.customerKey, context.deviceKey, Math.floor(Date.now() / 1000));
    if ('token' in answer) return;
    const retryAfter = answer.retryAfterSeconds ?? 1;
    if (attempt >= 2 || retryAfter > MAX_RETRY_AFTER_SECONDS) {
      throw new StepFailure('login', `HTTP 429 rate limited${attempt >= 2 ? ' again after waiting' : ` for ${retryAfter} s`}`);
    }
    await sleep(retryAfter * 1000);
  }
}

/**
 * Streams the download of `cid` into the digests and compares them with the ledger's `md`, the
 * answer's `x-MD5` and the `cid`. A broken or short body is a download failure; a digest mismatch
 * a verify failure.
 */
async function downloadAndVerify(client: DeviceClient, cid: string, md: string, mac: string): Promise<void> {
  const response = await client.download(cid, mac);
  let streamError: unknown;
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) yield chunk;
    } catch (error) {
      streamError = error ?? new Error('download stream failed');
      throw streamError;
    }
  }
  let digests;
  try {
    digests = await computeDigests(body());
  } catch (error) {
    if (streamError !== undefined) throw new StepFailure('download', `firmware ${cid}: ${errorText(streamError)}`);
    throw new StepFailure('verify', `computing digests of firmware ${cid}: ${errorText(error)}`);
  } finally {
    if (!response.complete) response.destroy();
  }
  const declared = response.headers['content-length'];
  if (declared !== undefined && Number(declared) !== digests.size) {
    throw new StepFailure('download', `firmware ${cid}: got ${digests.size} of ${declared} bytes`);
  }
  const announced = response.headers['x-md5'];
  if (announced !== md) throw new StepFailure('verify', `x-MD5 ${String(announced)} of firmware ${cid} is not the ledger's ${md}`);
  if (digests.md5 !== md) throw new StepFailure('verify', `MD5 ${digests.md5} of firmware ${cid} is not the ledger's ${md}`);
  if (digests.cid !== cid) throw new StepFailure('verify', `downloaded bytes have CID ${digests.cid}, not ${cid}`);
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
  }
  return String(error);
}
