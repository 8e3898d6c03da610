import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonReportChunks } from './json-report.js';
import type { DeviceRow } from './report-row.js';
import { renderXmlReport, xmlReportChunks } from './xml-report.js';

const row = (i: number, name = `device ${i}`): DeviceRow => ({
  mac: `AC:67:B2:00:00:${i.toString(16).padStart(2, '0').toUpperCase()}`,
  name,
  'firmware-version': `1.${i}`,
});

async function* pagesOf(...pages: DeviceRow[][]): AsyncGenerator<DeviceRow[]> {
  for (const page of pages) yield page;
}

async function collect(chunks: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

const tricky = [row(1, 'Tom & Jerry <b>"q"</b> \'a\''), row(2, 'Ünïcødé 温度 \u0007 bell'), row(3, '')];

const layouts: [string, DeviceRow[][]][] = [
  ['no pages', []],
  ['one empty page', [[]]],
  ['one page', [[row(1), row(2)]]],
  ['several pages, one empty', [[row(1), row(2)], [], [row(3)], tricky]],
];

describe(jsonReportChunks.name, () => {
  for (const [label, pages] of layouts) {
    it(`gives the bytes of JSON.stringify(rows): ${label}`, async () => {
      const chunks = await collect(jsonReportChunks(pagesOf(...pages)));
      assert.equal(chunks.join(''), JSON.stringify(pages.flat()));
    });
  }

  it('yields one chunk per non-empty page plus the closing bracket', async () => {
    assert.equal((await collect(jsonReportChunks(pagesOf([row(1)], [], [row(2)])))).length, 3);
  });
});

describe(xmlReportChunks.name, () => {
  for (const [label, pages] of layouts) {
    it(`gives the bytes of renderXmlReport(rows): ${label}`, async () => {
      const chunks = await collect(xmlReportChunks(pagesOf(...pages)));
      assert.equal(chunks.join(''), renderXmlReport(pages.flat()));
    });
  }
});
