import autocannon from 'autocannon';
import { cpuMicros, postgresCpuMicros } from './processes.js';

/** Settings shared by every throughput scenario, so their numbers compare. */
export interface LoadSettings {
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Unmeasured seconds before, same load. */
  warmup: number;
}

/** One request of a scenario; called for every request autocannon sends. */
export type NextRequest = () => { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> };

/** What a scenario measured. */
export interface LoadResult {
  requestsPerSecond: number;
  /** Milliseconds. */
  p50: number;
  /** Milliseconds. */
  p99: number;
  requests: number;
  /** Answers that were not 2xx, plus socket errors and timeouts. */
  failures: number;
  /** Status code → count, for a failure report. */
  statuses: Record<string, number>;
  /** CPU time per request of the measured run, microseconds ({@link CpuWatch}); absent when nothing was watched. */
  cpu?: CpuPerRequest;
}

/** Which processes' CPU time a measured run divides by its requests. */
export interface CpuWatch {
  /** The server under test (every thread of it). */
  pid: number;
  /** Also the local PostgreSQL server's processes (the scenario runs on PostgreSQL). */
  postgres?: boolean;
}

/** CPU microseconds per request of a measured run, and how busy the machine's cores were. */
export interface CpuPerRequest {
  /** The server process under test, every thread. */
  server: number;
  /** Of that, its main thread, which runs the event loop (one core at most: what bounds one process). */
  eventLoop: number;
  /** The PostgreSQL server's processes, when watched. */
  postgres?: number;
  /** The load generator (autocannon, in this process). */
  loadGenerator: number;
  /** CPU time of all three over the run's wall time: cores kept busy (this machine has `os.availableParallelism()`). */
  coresBusy: number;
}

/** Starts counting the CPU time of `watch`; the returned function divides what was used since by `requests`. */
function cpuCounter(watch: CpuWatch | undefined): (requests: number) => CpuPerRequest | undefined {
  if (watch === undefined) return () => undefined;
  const started = performance.now();
  const self = process.cpuUsage();
  const server = cpuMicros(watch.pid);
  const eventLoop = cpuMicros(watch.pid, watch.pid);
  const postgres = watch.postgres ? postgresCpuMicros() : undefined;
  return (requests) => {
    const serverNow = cpuMicros(watch.pid);
    const eventLoopNow = cpuMicros(watch.pid, watch.pid);
    const { user, system } = process.cpuUsage(self);
    const wallMicros = (performance.now() - started) * 1000;
    if (server === undefined || serverNow === undefined || eventLoop === undefined || eventLoopNow === undefined) return undefined;
    if (requests === 0) return undefined;
    const used = {
      server: serverNow - server,
      postgres: postgres === undefined ? 0 : postgresCpuMicros() - postgres,
      generator: user + system,
    };
    return {
      server: used.server / requests,
      eventLoop: (eventLoopNow - eventLoop) / requests,
      ...(postgres !== undefined ? { postgres: used.postgres / requests } : {}),
      loadGenerator: used.generator / requests,
      coresBusy: (used.server + used.postgres + used.generator) / wallMicros,
    };
  };
}

/**
 * Drives `origin` with `settings.connections` keep-alive connections (no pipelining): a warm-up
 * run, then the measured run. Each request comes from `next`. With `watch`, the CPU time the
 * watched processes used during the measured run is divided by its requests.
 */
export async function measure(origin: string, next: NextRequest, settings: LoadSettings, watch?: CpuWatch): Promise<LoadResult> {
  const run = (duration: number) => drive(origin, next, settings.connections, { duration });
  if (settings.warmup > 0) await run(settings.warmup);
  const counter = cpuCounter(watch);
  const result = resultOf(await run(settings.duration));
  return { ...result, cpu: counter(result.requests) };
}

/**
 * Sends exactly `amount` requests from `next` over `connections` keep-alive connections, without a
 * warm-up: for requests that can be made once only (a device reports its success once). The rate
 * is the requests over the run's whole duration.
 */
export async function measureAmount(
  origin: string,
  next: NextRequest,
  amount: number,
  connections: number,
  watch?: CpuWatch,
): Promise<LoadResult> {
  const counter = cpuCounter(watch);
  // autocannon ends a run at its next sample tick: ticks of 100 ms keep the duration within 0.1 s.
  const result = await drive(origin, next, connections, { amount, sampleInt: 100 });
  const measured = resultOf(result);
  return { ...measured, requestsPerSecond: result.requests.total / Math.max(result.duration, 1e-3), cpu: counter(measured.requests) };
}

function drive(
  origin: string,
  next: NextRequest,
  connections: number,
  length: { duration: number } | { amount: number; sampleInt: number },
) {
  return autocannon({
    url: origin,
    connections,
    pipelining: 1,
    ...length,
    timeout: 10,
    requests: [
      {
        setupRequest: (request) => {
          const { method, path, body, headers } = next();
          return {
            ...request,
            method,
            path,
            body,
            headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          };
        },
      },
    ],
  });
}

function resultOf(result: autocannon.Result): LoadResult {
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = count ?? 0;
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
    statuses,
  };
}
