import { memoryOf, resetPeak } from './processes.js';

/** What fetching one report measured. */
export interface ReportMeasurement {
  status: number;
  contentType: string;
  bytes: number;
  /** Seconds from sending the request to the last byte. */
  seconds: number;
  /** Server RSS just before the request, bytes. */
  rssBefore: number;
  /**
   * Highest server RSS while the report was produced, bytes: `VmHWM` reset just before the request
   * (or, when the kernel refuses the reset, the higher of `VmHWM` since start and samples every 10 ms).
   */
  peakRss: number;
  /** Whether `peakRss` is the kernel's peak since the reset. */
  peakReset: boolean;
}

/**
 * Fetches a report from a server process, reading the body as it streams (never holding it),
 * and samples the server's memory meanwhile.
 */
export async function measureReport(url: string, token: string, serverPid: number, timeoutMs: number): Promise<ReportMeasurement> {
  const rssBefore = memoryOf(serverPid).rss;
  const peakReset = resetPeak(serverPid);
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, memoryOf(serverPid).rss);
  }, 10);
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { 'x-access-token': token }, signal: AbortSignal.timeout(timeoutMs) });
    let bytes = 0;
    for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).byteLength;
    const seconds = (performance.now() - started) / 1000;
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      bytes,
      seconds,
      rssBefore,
      peakRss: Math.max(peakRss, memoryOf(serverPid).peak),
      peakReset,
    };
  } finally {
    clearInterval(sampler);
  }
}
