import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fateOf, pollsAgain, runDeviceCycle, wasOffered, type CycleContext } from './device-cycle.js';
import type { Endpoints } from './device-client.js';
import { DeviceTransport } from './http-transport.js';
import { canonicalMacPrefix, MAX_SIMULATED_DEVICES, simulatedMac } from './macs.js';
import { canBindLoopbackAliases, isLoopbackHost, loopbackSourceAddress } from './source-address.js';
import { emptyFailures, formatRound, totalFailures, type RoundSummary, type SimulateSummary, type SimulationStep } from './summary.js';

export { simulatedMacs } from './macs.js';
export { formatRound, formatSummary, SIMULATION_STEPS, type RoundSummary, type SimulateSummary, type SimulationStep } from './summary.js';

/** Most rounds a run may have. */
export const MAX_ROUNDS = 10_000;
/** Longest wait between rounds, seconds (a day). */
export const MAX_POLL_INTERVAL_SECONDS = 86_400;

/** What `firmledger simulate` runs. */
export interface SimulateOptions {
  /** Component base URLs: scheme, host, port, optional path prefix. */
  authUrl: string;
  vcUrl: string;
  bcUrl: string;
  /** Base URL of the IPFS download server. */
  ipfsUrl: string;
  /** The tenant's customer key (the HMAC secret; never sent). */
  customerKey: string;
  /** The device key all simulated devices log in with. */
  deviceKey: string;
  /** Number of devices (N), 0 to 16 777 215. */
  devices: number;
  /** Devices in flight at once, >= 1. */
  concurrency: number;
  /** Three bytes, e.g. `02:F1:ED`; device i (1-based) gets the prefix plus the three bytes of i. */
  macPrefix: string;
  /** Version the devices run before updating, e.g. `1.0.0`. */
  firmwareVersion: string;
  /** Share of devices (0 to 1, chosen by a hash of the mac: the same ones every run) whose update fails: they send a failure report. Default 0. */
  failRate?: number;
  /** Share of devices (0 to 1, by the same hash, after the failing ones) whose new image does not boot: they report success, then ask again on the old version. Default 0. */
  fallbackRate?: number;
  /**
   * Share of devices (0 to 1, by the same hash, after the failing and falling-back ones) that take
   * the offer, download and verify it, then go silent: no report (docs/decisions.md §10.2). Default 0.
   * `failRate + fallbackRate + silentRate` is at most 1.
   */
  silentRate?: number;
  /**
   * Rounds, 1 to 10 000. Devices told there is nothing for them now (`{}`: no rollout, or one held
   * back by a ramp, a closed window or a wave not started, docs/decisions.md §10.1) run their
   * cycle again in the next round; the others are done. Default 1.
   */
  rounds?: number;
  /** Seconds to wait between rounds, 0 to 86 400 (fractions allowed). Default 60. */
  pollIntervalSeconds?: number;
  /**
   * Waits `seconds` between rounds; default: a timer. A spec passes one that moves the server's
   * test clock instead, so a ramp's next minute comes without waiting a minute.
   */
  wait?: (seconds: number) => Promise<void>;
  /** Name prefix; device i is named `<name>-<i>`. Default `sim`. */
  name?: string;
  /** A request fails when no byte moves for this long, ms. Default 30 000. */
  requestTimeoutMs?: number;
}

/** How often progress is reported, ms (at most ~4 lines a second). */
const PROGRESS_INTERVAL_MS = 250;

/**
 * Runs N simulated field devices against a running server, `concurrency` at a time, each
 * through one full cycle (see device-cycle.ts), and summarises the outcome. With `rounds` > 1,
 * the devices told there is nothing for them now run another cycle each round, `pollIntervalSeconds`
 * apart, until none is waiting or the rounds end. Every cycle is bounded (request idle timeout,
 * at most one rate-limit wait) and so is the number of rounds, so the run ends by itself.
 * Each device uses its own keep-alive connections and, when a server is on a loopback
 * address and the OS allows it, its own 127.x.y.z source address (its own client IP).
 * @param progress called at most ~4 times a second with a one-line status.
 * @param roundDone called after each round with its line (see {@link formatRound}), when there is more than one round.
 * @throws RangeError / TypeError for invalid options, before any request.
 */
export async function simulate(
  options: SimulateOptions,
  progress?: (line: string) => void,
  roundDone?: (line: string) => void,
): Promise<SimulateSummary> {
  const o = checkOptions(options);
  const endpoints: Endpoints = { auth: o.auth, vc: o.vc, bc: o.bc, ipfs: o.ipfs };
  const prefix = canonicalMacPrefix(o.macPrefix);
  const notes: string[] = [];

  const anyLoopback = [o.auth, o.vc, o.bc, o.ipfs].some((url) => isLoopbackHost(url.hostname));
  const ownAddresses = anyLoopback && (await canBindLoopbackAliases());
  if (anyLoopback && !ownAddresses) {
    notes.push(
      'cannot bind 127.x.y.z source addresses here: all devices share one client IP, so the login rate limit applies to them together',
    );
  } else if (!isLoopbackHost(o.auth.hostname)) {
    notes.push(
      "the auth server is not on loopback: all devices share this host's client IP, so the login rate limit applies to them together",
    );
  }

  const context: CycleContext = { endpoints, customerKey: o.customerKey, deviceKey: o.deviceKey };

  let requests = 0;
  let updated = 0;
  let upToDate = 0;
  let fellBack = 0;
  let reportedFailure = 0;
  let silent = 0;
  let inFlight = 0;
  let round = 1;
  const rounds: RoundSummary[] = [];
  const failures = emptyFailures();
  const failureExamples: Partial<Record<SimulationStep, string>> = {};
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;

  let lastLine = '';
  const report = (): void => {
    if (!progress) return;
    const seconds = elapsed();
    const done = updated + upToDate + fellBack + reportedFailure + silent + totalFailures(failures);
    const line =
      (o.rounds > 1 ? `simulate round ${round}/${o.rounds}: ` : 'simulate: ') +
      `${done}/${o.devices} done, ${updated} updated, ${upToDate} up to date, ` +
      (fellBack + reportedFailure > 0 ? `${fellBack} fell back, ${reportedFailure} reported a failure, ` : '') +
      (silent > 0 ? `${silent} silent, ` : '') +
      `${totalFailures(failures)} failed, ${inFlight} in flight, ${requests} requests ` +
      `(${(seconds > 0 ? requests / seconds : 0).toFixed(1)}/s)`;
    if (line === lastLine) return;
    lastLine = line;
    try {
      progress(line);
    } catch {
      // a broken progress sink must not stop the run
    }
  };
  let timer = progress ? setInterval(report, PROGRESS_INTERVAL_MS) : undefined;

  // Device indexes asking this round; those told there is nothing for them now ask again next round.
  let asking = Array.from({ length: o.devices }, (_, index) => index);
  let waiting: number[] = [];
  let offered = 0;
  let nextSlot = 0;
  const worker = async (): Promise<void> => {
    while (nextSlot < asking.length) {
      const index = asking[nextSlot++];
      inFlight++;
      const transport = new DeviceTransport(ownAddresses ? loopbackSourceAddress(index) : undefined, o.requestTimeoutMs, () => {
        requests++;
      });
      try {
        const mac = simulatedMac(prefix, index);
        const fate = fateOf(mac, o.failRate, o.fallbackRate, o.silentRate);
        const outcome = await runDeviceCycle(
          { mac, name: `${o.name}-${index + 1}`, firmwareVersion: o.firmwareVersion, fate },
          context,
          transport,
        );
        if (wasOffered(outcome)) offered++;
        if (pollsAgain(outcome)) waiting.push(index);
        if (outcome.kind === 'updated') updated++;
        else if (outcome.kind === 'up-to-date') upToDate++;
        else if (outcome.kind === 'fell-back') fellBack++;
        else if (outcome.kind === 'reported-failure') reportedFailure++;
        else if (outcome.kind === 'silent') silent++;
        else {
          failures[outcome.step]++;
          failureExamples[outcome.step] ??= outcome.reason;
        }
      } finally {
        transport.close();
        inFlight--;
      }
    }
  };

  try {
    for (;;) {
      await Promise.all(Array.from({ length: Math.min(o.concurrency, Math.max(asking.length, 1)) }, worker));
      waiting.sort((a, b) => a - b);
      const counts: RoundSummary = { round, asked: asking.length, offered, updated, waiting: waiting.length };
      rounds.push(counts);
      if (o.rounds > 1) {
        report();
        try {
          roundDone?.(formatRound(counts, o.devices));
        } catch {
          // a broken sink must not stop the run
        }
      }
      if (!anotherRound(round, o.rounds, waiting.length)) break;
      // No progress line while waiting: the round's line is the last word until the next round starts.
      if (timer) clearInterval(timer);
      await o.wait(o.pollIntervalSeconds);
      if (timer) timer = setInterval(report, PROGRESS_INTERVAL_MS);
      round++;
      // The waiting devices ask again: they are no longer counted up to date until they are told so again.
      upToDate -= waiting.length;
      asking = waiting;
      waiting = [];
      offered = 0;
      nextSlot = 0;
    }
  } finally {
    if (timer) clearInterval(timer);
  }
  const seconds = elapsed();
  report();
  const summary: SimulateSummary = {
    devices: o.devices,
    updated,
    upToDate,
    ...(fellBack > 0 ? { fellBack } : {}),
    ...(reportedFailure > 0 ? { reportedFailure } : {}),
    ...(silent > 0 ? { silent } : {}),
    rounds,
    failures,
    requests,
    seconds,
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
  };
  if (Object.keys(failureExamples).length > 0) summary.failureExamples = failureExamples;
  if (notes.length > 0) summary.notes = notes;
  return summary;
}

/** Whether a run goes on to another round after `round` (1-based) of `rounds`: only while devices wait. Pure. */
export function anotherRound(round: number, rounds: number, waiting: number): boolean {
  return round < rounds && waiting > 0;
}

interface CheckedOptions extends Required<SimulateOptions> {
  auth: URL;
  vc: URL;
  bc: URL;
  ipfs: URL;
}

function checkOptions(options: SimulateOptions): CheckedOptions {
  const url = (label: string, text: string): URL => {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new TypeError(`${label} is not a URL: ${JSON.stringify(text)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`${label} must be http or https: ${text}`);
    return parsed;
  };
  const integer = (label: string, value: number, min: number, max: number): number => {
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new RangeError(`${label} must be an integer from ${min} to ${max}, got ${value}`);
    }
    return value;
  };
  const rate = (label: string, value: number): number => {
    if (!(value >= 0 && value <= 1)) throw new RangeError(`${label} must be a share from 0 to 1, got ${value}`);
    return value;
  };
  const text = (label: string, value: string, max: number): string => {
    if (typeof value !== 'string' || value.length === 0 || value.length > max) {
      throw new TypeError(`${label} must be 1 to ${max} characters`);
    }
    return value;
  };
  const seconds = (label: string, value: number): number => {
    if (!(value >= 0 && value <= MAX_POLL_INTERVAL_SECONDS)) {
      throw new RangeError(`${label} must be from 0 to ${MAX_POLL_INTERVAL_SECONDS} seconds, got ${value}`);
    }
    return value;
  };
  const checked: CheckedOptions = {
    ...options,
    auth: url('authUrl', options.authUrl),
    vc: url('vcUrl', options.vcUrl),
    bc: url('bcUrl', options.bcUrl),
    ipfs: url('ipfsUrl', options.ipfsUrl),
    customerKey: text('customerKey', options.customerKey, 4096),
    deviceKey: text('deviceKey', options.deviceKey, 4096),
    devices: integer('devices', options.devices, 0, MAX_SIMULATED_DEVICES),
    concurrency: integer('concurrency', options.concurrency, 1, 100_000),
    firmwareVersion: text('firmwareVersion', options.firmwareVersion, 64),
    // names are 1..128 characters (docs/decisions.md §6); leave room for `-<index>`
    name: text('name', options.name ?? 'sim', 110),
    requestTimeoutMs: integer('requestTimeoutMs', options.requestTimeoutMs ?? 30_000, 1, 3_600_000),
    failRate: rate('failRate', options.failRate ?? 0),
    fallbackRate: rate('fallbackRate', options.fallbackRate ?? 0),
    silentRate: rate('silentRate', options.silentRate ?? 0),
    rounds: integer('rounds', options.rounds ?? 1, 1, MAX_ROUNDS),
    pollIntervalSeconds: seconds('pollIntervalSeconds', options.pollIntervalSeconds ?? 60),
    wait: options.wait ?? ((s: number) => sleep(s * 1000)),
  };
  const shares = checked.failRate + checked.fallbackRate + checked.silentRate;
  if (shares > 1 + 1e-9) throw new RangeError(`failRate + fallbackRate + silentRate must be at most 1, got ${shares}`);
  return checked;
}
