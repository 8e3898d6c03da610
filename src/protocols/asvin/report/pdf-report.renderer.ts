import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { setTimeout } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { RetryLaterException } from '#src/platform/http/http-error.filter.js';
import type { DeviceRow } from './report-row.js';
import type { PdfWorkerData, PdfWorkerMessage } from './pdf-report.worker.js';

/** Renders of one tenant at a time: more are 429 (a tenant cannot take every render of the process). */
export const PDF_RENDERS_PER_TENANT = 1;
/** Renders of the process at a time, each a worker thread on a core of its own: more are 503. */
export const PDF_RENDERS_PER_PROCESS = 2;
/** `Retry-After` of a refused render, seconds. */
export const PDF_RETRY_AFTER_SECONDS = 10;
/**
 * Heap of a render's thread, MiB: old generation and young generation. A chunk of rows needs a few
 * tens; a tight heap is collected early, which keeps the process's memory low (a thread with a
 * 256 MiB heap let it grow to 130 MiB before collecting), and a thread over it ends with an error,
 * not the process. Measured with the worst rows (128-character names that switch script at every
 * character): 96 MiB renders them at the speed of plain rows, 64 MiB three times slower.
 */
const WORKER_HEAP_MB = { old: 96, young: 8 };
/** Share of time the event loop may be busy for a render to lay out its next chunk at once. */
const BUSY_UTILIZATION = 0.5;
/** Longest a render waits for the event loop to be less busy before its next chunk, milliseconds. */
const MAX_YIELD_MS = 5000;
/** How often a waiting render looks again, milliseconds. */
const YIELD_CHECK_MS = 50;
/** Bytes of the report held for a slow client before rows are read further. */
const BUFFERED_BYTES = 1 << 20;

/** 429 and 503 texts of a refused render. */
export const PdfRenderMessages = {
  tenantBusy: 'A PDF report of this tenant is being rendered; try again later',
  processBusy: 'Too many PDF reports are being rendered; try again later',
} as const;

/** What the renderer needs to start a report: its heading, and its rows a page at a time. */
export interface PdfReportJob {
  tenantName: string;
  generatedAt: Date;
  deviceCount: number;
  pages: AsyncIterable<DeviceRow[]>;
  fallbackFonts?: readonly string[];
}

/**
 * Renders `pdf` reports in worker threads (`pdf-report.worker.ts`, at the lowest CPU priority), a
 * bounded number at once: {@link PDF_RENDERS_PER_TENANT} per tenant (more: 429) and
 * {@link PDF_RENDERS_PER_PROCESS} in all (more: 503), both with `Retry-After`. The main thread
 * only reads pages of rows for the thread and passes its bytes on, as fast as the client reads
 * them: memory holds a chunk of rows and about a megabyte of the document, whatever the number of
 * devices. Device requests come first: a chunk starts when the event loop leaves room (see
 * `quietMoment`), so under full load a report advances a chunk every few seconds. A client that
 * goes away stops its render.
 */
@Injectable()
export class PdfReportRenderer implements OnApplicationShutdown {
  private readonly logger = new Logger('Reports');
  private readonly perTenant = new Map<number, number>();
  private running = 0;
  private readonly workers = new Set<Worker>();
  /** Event-loop utilization when a render last checked it (see {@link quietMoment}). */
  private utilization = performance.eventLoopUtilization();

  /**
   * Reserves a render for the tenant, then loads the job (`load` runs after the reservation, so a
   * refused request costs nothing), starts the thread and resolves with the document's bytes as a
   * stream once the first ones are ready (an error before then rejects: a 500, not a cut-off file).
   * @throws RetryLaterException 429 when the tenant has {@link PDF_RENDERS_PER_TENANT} renders
   *   running, 503 when the process has {@link PDF_RENDERS_PER_PROCESS}.
   */
  async render(tenantId: number, load: () => Promise<PdfReportJob>): Promise<Readable> {
    const release = this.reserve(tenantId);
    try {
      return await this.start(await load(), release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Resolves when the event loop was busy less than {@link BUSY_UTILIZATION} of the time since the
   * last check (at once, when it was), or after {@link MAX_YIELD_MS} at the latest: a render lays
   * out its next chunk when device requests leave room, so it cannot slow them much even where the
   * cores are few (a thread's low priority alone is not enough: its garbage collector's helper
   * threads run at the process's priority).
   */
  private async quietMoment(): Promise<void> {
    const deadline = Date.now() + MAX_YIELD_MS;
    for (;;) {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, this.utilization).utilization;
      this.utilization = now;
      if (busy < BUSY_UTILIZATION || Date.now() >= deadline) return;
      await setTimeout(YIELD_CHECK_MS);
    }
  }

  onApplicationShutdown(): Promise<unknown> {
    return Promise.all([...this.workers].map((worker) => worker.terminate()));
  }

  private reserve(tenantId: number): () => void {
    const tenantRenders = this.perTenant.get(tenantId) ?? 0;
    if (tenantRenders >= PDF_RENDERS_PER_TENANT) {
      throw new RetryLaterException(429, PdfRenderMessages.tenantBusy, PDF_RETRY_AFTER_SECONDS);
    }
    if (this.running >= PDF_RENDERS_PER_PROCESS) {
      throw new RetryLaterException(503, PdfRenderMessages.processBusy, PDF_RETRY_AFTER_SECONDS);
    }
    this.running++;
    this.perTenant.set(tenantId, tenantRenders + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const left = (this.perTenant.get(tenantId) ?? 1) - 1;
      if (left === 0) this.perTenant.delete(tenantId);
      else this.perTenant.set(tenantId, left);
    };
  }

  private start(job: PdfReportJob, release: () => void): Promise<Readable> {
    const data: PdfWorkerData = {
      tenantName: job.tenantName,
      generatedAt: job.generatedAt.getTime(),
      deviceCount: job.deviceCount,
      fallbackFonts: job.fallbackFonts,
    };
    const worker = new Worker(new URL('./pdf-report.worker.js', import.meta.url), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB.old, maxYoungGenerationSizeMb: WORKER_HEAP_MB.young },
    });
    this.workers.add(worker);
    const pages = job.pages[Symbol.asyncIterator]();
    const rows = rowReader(pages);

    let wanted: number | undefined; // rows the thread asked for and has not been sent yet
    let reading = false;
    const sendRows = async (): Promise<void> => {
      if (wanted === undefined || reading || body.readableLength >= BUFFERED_BYTES) return;
      const count = wanted;
      wanted = undefined;
      reading = true;
      try {
        await this.quietMoment();
        if (ended) return;
        worker.postMessage({ type: 'rows', rows: await rows(count) });
      } catch (error) {
        body.destroy(error as Error);
      } finally {
        reading = false;
      }
    };
    const body = new Readable({ highWaterMark: BUFFERED_BYTES, read: () => void sendRows() });
    let ended = false;
    const stop = () => {
      if (ended) return;
      ended = true;
      this.workers.delete(worker);
      void worker.terminate();
      void pages.return?.();
      release();
    };
    body.once('close', stop);

    return new Promise<Readable>((resolve, reject) => {
      let started = false;
      let failed = false;
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        this.logger.error({ msg: `PDF report failed: ${error.stack ?? error.message}` });
        if (started) body.destroy(error);
        else {
          stop();
          reject(error);
        }
      };
      worker.on('message', (message: PdfWorkerMessage) => {
        if (message.type === 'rows') {
          wanted = message.count;
          void sendRows();
        } else if (message.type === 'bytes') {
          body.push(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
          if (!started) {
            started = true;
            resolve(body);
          }
        } else {
          body.push(null);
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!ended && !body.readableEnded && code !== 0) fail(new Error(`PDF worker exited with code ${code}`));
      });
    });
  }
}

/** Takes rows from pages as asked for, holding at most one page beyond what was taken. */
function rowReader(pages: AsyncIterator<DeviceRow[]>): (count: number) => Promise<DeviceRow[]> {
  let held: DeviceRow[] = [];
  let done = false;
  return async (count) => {
    while (held.length < count && !done) {
      const next = await pages.next();
      if (next.done) done = true;
      else held = held.concat(next.value);
    }
    return held.splice(0, count);
  };
}
