/**
 * Worker thread that renders one `pdf` report (see {@link PdfReportRenderer}), so the event loop
 * that serves devices never lays out a page. Messages: it asks for rows (`{type: 'rows', count}`,
 * answered `{type: 'rows', rows}`), sends the document's bytes as they are ready
 * (`{type: 'bytes', bytes}`, the buffer transferred) and ends with `{type: 'end'}`. An error ends
 * the thread with that error.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { pdfReportChunks, type DeviceRowSource } from './pdf-report.js';
import type { DeviceRow } from './report-row.js';

/** What the renderer starts the thread with. */
export interface PdfWorkerData {
  tenantName: string;
  /** Epoch milliseconds. */
  generatedAt: number;
  deviceCount: number;
  fallbackFonts?: readonly string[];
}

/** Messages of the thread to the renderer. */
export type PdfWorkerMessage = { type: 'rows'; count: number } | { type: 'bytes'; bytes: Uint8Array } | { type: 'end' };

/**
 * The lowest CPU priority (nice 19) for this thread alone, so device requests on the main thread
 * come first when the cores are busy. Linux: a thread's id is in `/proc/thread-self`, and
 * `setpriority` on it changes that thread only. Elsewhere the thread keeps the process's priority.
 */
function lowerPriority(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').at(-1)), 19);
  } catch {
    // Not Linux, or not allowed: render at the normal priority.
  }
}

async function run(port: NonNullable<typeof parentPort>, data: PdfWorkerData): Promise<void> {
  lowerPriority();
  const nextRows: DeviceRowSource = (count) =>
    new Promise<DeviceRow[]>((resolve) => {
      port.once('message', (message: { rows: DeviceRow[] }) => resolve(message.rows));
      port.postMessage({ type: 'rows', count } satisfies PdfWorkerMessage);
    });
  const meta = { tenantName: data.tenantName, generatedAt: new Date(data.generatedAt), deviceCount: data.deviceCount };
  for await (const chunks of pdfReportChunks(nextRows, meta, { fallbackFonts: data.fallbackFonts })) {
    // One buffer of its own per message (Buffer.concat may hand out a slice of a shared pool).
    const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    port.postMessage({ type: 'bytes', bytes } satisfies PdfWorkerMessage, [bytes.buffer]);
  }
  port.postMessage({ type: 'end' } satisfies PdfWorkerMessage);
}

if (parentPort) await run(parentPort, workerData as PdfWorkerData);
