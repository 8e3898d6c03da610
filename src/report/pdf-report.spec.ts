import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DeviceRow, ReportMeta } from './report-row.js';
import { renderPdfReport } from './pdf-report.js';

const UNICODE_NAME = 'Ünïcødé Κόμβος Устройство';
const META: ReportMeta = {
  tenantName: 'Acme Ωmega Тест',
  generatedAt: new Date('2026-03-04T05:06:07.890Z'),
};

function devices(count: number): DeviceRow[] {
  return Array.from({ length: count }, (_, i) => ({
    mac: `AC:67:B2:00:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`.toUpperCase(),
    name: i === 1 ? UNICODE_NAME : `device-${i}`,
    'firmware-version': `1.${i}.0`,
  }));
}

/** Text of each page, as pdf.js extracts it (the same text a reader copies or searches). */
async function pageTexts(pdf: Buffer): Promise<string[]> {
  const doc = await getDocument({
    data: new Uint8Array(pdf), // a copy: pdf.js takes ownership of the bytes it is given
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      pages.push(
        content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''),
      );
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

describe(renderPdfReport.name, () => {
  it('produces a complete PDF file', async () => {
    const pdf = await renderPdfReport(devices(3), META);
    assert.ok(Buffer.isBuffer(pdf));
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.match(pdf.subarray(-16).toString('latin1'), /%%EOF\r?\n?$/);
  });

  it('shows title, tenant, generation time, device count and the device rows', async () => {
    const rows = devices(3);
    const text = (await pageTexts(await renderPdfReport(rows, META))).join('\n');
    assert.ok(text.includes('Device report'), text);
    assert.ok(text.includes(META.tenantName), text);
    assert.ok(text.includes('2026-03-04 05:06:07 UTC'), text);
    assert.match(text, /Devices:\s*3\b/);
    assert.ok(text.includes('MAC') && text.includes('Name') && text.includes('Firmware version'), text);
    for (const row of rows) {
      assert.ok(text.includes(row.mac), `missing ${row.mac} in ${text}`);
      assert.ok(text.includes(row.name), `missing ${row.name} in ${text}`);
      assert.ok(text.includes(row['firmware-version']), `missing ${row['firmware-version']} in ${text}`);
    }
    assert.ok(text.includes(UNICODE_NAME), text);
  });

  it('repeats the table header on every page', async () => {
    const rows = devices(150);
    const pages = await pageTexts(await renderPdfReport(rows, META));
    assert.ok(pages.length >= 3, `expected at least 3 pages, got ${pages.length}`);
    for (const [i, page] of pages.entries()) {
      assert.ok(page.includes('Firmware version'), `page ${i + 1} lacks the header row`);
    }
    assert.ok(pages.at(-1)?.includes(rows.at(-1)?.mac ?? '?'), 'last device missing from last page');
  });

  it('renders an empty report with a device count of 0', async () => {
    const text = (await pageTexts(await renderPdfReport([], META))).join('\n');
    assert.match(text, /Devices:\s*0\b/);
    assert.ok(text.includes('Firmware version'), text);
  });

  it('rejects an invalid generation time with RangeError', async () => {
    await assert.rejects(
      renderPdfReport(devices(1), { tenantName: 't', generatedAt: new Date(Number.NaN) }),
      (error: unknown) => error instanceof RangeError && /generatedAt/.test(error.message),
    );
  });
});
