import type { DeviceRow } from './report-row.js';

/**
 * The `json` report (docs/decisions.md §6: the device list) as chunks, one per page of rows: the same
 * bytes as `JSON.stringify(rows)`, without holding the whole array. The first chunk comes once
 * the first page is read.
 */
export async function* jsonReportChunks(pages: AsyncIterable<readonly DeviceRow[]>): AsyncGenerator<string> {
  let separator = '[';
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield separator + page.map((row) => JSON.stringify(row)).join(',');
    separator = ',';
  }
  yield separator === '[' ? '[]' : ']';
}
