import autocannon from 'autocannon';

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
}

/**
 * Drives `origin` with `settings.connections` keep-alive connections (no pipelining): a warm-up
 * run, then the measured run. Each request comes from `next`.
 */
export async function measure(origin: string, next: NextRequest, settings: LoadSettings): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url: origin,
      connections: settings.connections,
      pipelining: 1,
      duration,
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
  if (settings.warmup > 0) await run(settings.warmup);
  const result = await run(settings.duration);
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
