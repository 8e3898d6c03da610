import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { DeviceRow, ReportMeta } from './report-row.js';
import { fallbackFontsAvailable, renderPdfReport } from './pdf-report.js';
import { pdfPageTexts, withPdf } from '#test/support/pdf-text.js';

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

/** Text of each page, items joined without spaces. */
const pageTexts = (pdf: Buffer): Promise<string[]> => pdfPageTexts(pdf, '');

/** A piece of extracted text and the PostScript name of the embedded font drawing it (subset tag removed). */
interface FontedText {
  str: string;
  font: string;
}

/** Text items of all pages with the name of the embedded font each is drawn with. */
async function fontedTexts(pdf: Buffer): Promise<FontedText[]> {
  return withPdf(pdf, async (doc) => {
    const items: FontedText[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      await page.getOperatorList(); // loads the page's fonts into commonObjs
      for (const item of content.items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        const font = (page.commonObjs.get(item.fontName) as { name: string }).name;
        items.push({ str: item.str, font: font.replace(/^[A-Z]{6}\+/, '') });
      }
    }
    return items;
  });
}

/** The embedded fonts' PostScript names, from the (uncompressed) font dictionaries: each Type0 font and its CIDFont name it. */
function baseFonts(pdf: Buffer): string[] {
  const names = [...pdf.toString('latin1').matchAll(/\/BaseFont\s*\/[A-Z]{6}\+([^\s/>\]]+)/g)].map((m) => m[1]);
  return [...new Set(names)].sort();
}

const UNIFONT = '/usr/share/fonts/opentype/unifont/unifont.otf';
const UNIFONT_UPPER = '/usr/share/fonts/opentype/unifont/unifont_upper.otf';
/** These tests skip (visibly) where GNU Unifont is not installed; CI installs fonts-unifont. */
const needsUnifont = {
  skip: existsSync(UNIFONT) && existsSync(UNIFONT_UPPER) ? false : 'GNU Unifont missing (apt-get install fonts-unifont)',
};

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

  it('joins its chunks into one document: every row once and in order, full pages numbered "Page i of n"', async () => {
    // 2,100 short rows are three chunks of 1,000 rows; 400 rows of the longest names and versions
    // are three chunks of at most 40,000 characters.
    const long = (i: number): string => `${'long name '.repeat(12)}${i}`.slice(-128);
    for (const rows of [
      devices(2100),
      devices(400).map((row, i) => ({ ...row, name: long(i), 'firmware-version': `v${'9'.repeat(62)}${i % 10}` })),
    ]) {
      const pages = await pageTexts(await renderPdfReport(rows, META));
      const macs = pages.map((page) => page.match(/AC:67:B2:00:[0-9A-F]{2}:[0-9A-F]{2}/g) ?? []);
      assert.deepEqual(
        macs.flat(),
        rows.map((row) => row.mac),
      );
      const perPage = macs.slice(1, -1).map((onPage) => onPage.length);
      // Every page between the first and the last holds as many rows as the fullest one, give or take one.
      assert.ok(Math.min(...perPage) >= Math.max(...perPage) - 1, `rows per page: ${perPage.join(', ')}`);
      for (const [i, page] of pages.entries())
        assert.ok(page.includes(`Page ${i + 1} of ${pages.length}`), `page ${i + 1}: ${page.slice(-40)}`);
    }
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

  describe('scripts Roboto lacks (docs/decisions.md §6: any Unicode name)', () => {
    const CJK = '设备-東京';
    const ARABIC = 'مضخة';
    const DEVANAGARI = 'पंप';
    const LATIN = 'plain latin pump';
    const rows: DeviceRow[] = [
      { mac: 'AC:67:B2:00:00:01', name: CJK, 'firmware-version': '1.0' },
      { mac: 'AC:67:B2:00:00:02', name: ARABIC, 'firmware-version': '2.0' },
      { mac: 'AC:67:B2:00:00:03', name: DEVANAGARI, 'firmware-version': '3.0' },
      { mac: 'AC:67:B2:00:00:04', name: '🚀 rocket', 'firmware-version': 'v版本4' },
      { mac: 'AC:67:B2:00:00:05', name: LATIN, 'firmware-version': '5.0' },
      { mac: 'AC:67:B2:00:00:06', name: UNICODE_NAME, 'firmware-version': '6.0' },
    ];
    const meta: ReportMeta = { tenantName: 'Acme 株式会社', generatedAt: META.generatedAt };

    it('draws CJK, Arabic, Devanagari and emoji with GNU Unifont, so their text is extractable', needsUnifont, async () => {
      const pdf = await renderPdfReport(rows, meta);
      const text = (await pageTexts(pdf)).join('\n');
      assert.ok(text.includes(CJK), text);
      assert.ok(text.includes('株式会社'), text);
      for (const letter of ARABIC)
        assert.ok(text.includes(letter), `Arabic letter U+${letter.codePointAt(0)?.toString(16)} missing in ${text}`);
      for (const letter of ['प', 'ं']) assert.ok(text.includes(letter), `Devanagari ${letter} missing in ${text}`);
      assert.ok(text.includes('🚀'), text);
      assert.ok(text.includes('版本'), text);

      const items = await fontedTexts(pdf);
      const fontOf = (str: string): string | undefined => items.find((item) => item.str.includes(str))?.font;
      assert.equal(fontOf(CJK), 'Unifont');
      assert.equal(fontOf('प'), 'Unifont');
      assert.equal(fontOf('🚀'), 'UnifontUpper');
      assert.deepEqual(baseFonts(pdf), ['Roboto-Medium', 'Roboto-Regular', 'Unifont', 'UnifontUpper']);
    });

    it('still draws Latin, Greek and Cyrillic names with Roboto', needsUnifont, async () => {
      const items = await fontedTexts(await renderPdfReport(rows, meta));
      const fontOf = (str: string): string | undefined => items.find((item) => item.str.includes(str))?.font;
      assert.equal(fontOf(LATIN), 'Roboto-Regular');
      assert.equal(fontOf(UNICODE_NAME), 'Roboto-Regular');
      assert.equal(fontOf('AC:67:B2:00:00:01'), 'Roboto-Regular');
      assert.equal(fontOf('rocket'), 'Roboto-Regular');
      assert.equal(fontOf('Acme'), 'Roboto-Regular');
    });

    it('embeds no fallback font when every name is in Roboto', needsUnifont, async () => {
      assert.deepEqual(baseFonts(await renderPdfReport(devices(3), META)), ['Roboto-Medium', 'Roboto-Regular']);
    });

    it('uses the fallback fonts it is given', needsUnifont, async () => {
      const pdf = await renderPdfReport(rows, meta, { fallbackFonts: [UNIFONT] });
      assert.ok((await pageTexts(pdf)).join('\n').includes(CJK));
      assert.deepEqual(baseFonts(pdf), ['Roboto-Medium', 'Roboto-Regular', 'Unifont']); // no unifont_upper: 🚀 stays in Roboto
    });

    it('renders a valid PDF with Roboto alone when no fallback font exists', async () => {
      const options = { fallbackFonts: ['/nonexistent.otf'] };
      assert.equal(fallbackFontsAvailable(options.fallbackFonts), false);
      const pdf = await renderPdfReport(rows, meta, options);
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
      assert.match(pdf.subarray(-16).toString('latin1'), /%%EOF\r?\n?$/);
      assert.deepEqual(baseFonts(pdf), ['Roboto-Medium', 'Roboto-Regular']);
      const text = (await pageTexts(pdf)).join('\n');
      assert.ok(text.includes(LATIN) && text.includes(UNICODE_NAME) && text.includes('AC:67:B2:00:00:06'), text);
      assert.match(text, /Devices:\s*6\b/);
    });
  });
});
