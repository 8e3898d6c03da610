import { createRequire } from 'node:module';
import type { DeviceRow, ReportMeta } from './report-row.js';

/** The part of pdfmake 0.3's server singleton (`require('pdfmake')`) this module uses. */
interface PdfMakeServer {
  virtualfs: { writeFileSync(filename: string, content: Buffer): void };
  fonts?: Record<string, unknown>;
  addFonts(fonts: Record<string, FontFiles>): void;
  setUrlAccessPolicy(callback: (url: string) => boolean): void;
  setLocalAccessPolicy(callback: (path: string) => boolean): void;
  createPdf(docDefinition: object, options?: object): { getBuffer(): Promise<Buffer> };
}

interface FontFiles {
  normal: string;
  bold: string;
  italics: string;
  bolditalics: string;
}

/** Font family name registered with pdfmake; distinct from pdfmake's own 'Roboto' default. */
const FONT_FAMILY = 'FirmledgerReportRoboto';
/** Virtual-fs prefix so our entries cannot collide with anyone else's. */
const VFS_DIR = 'firmledger-report/';
const FONT_FILES: FontFiles = {
  normal: 'Roboto-Regular.ttf',
  bold: 'Roboto-Medium.ttf',
  italics: 'Roboto-Italic.ttf',
  bolditalics: 'Roboto-MediumItalic.ttf',
};

/** Font descriptor handed to pdfmake: paths inside its virtual file system. */
const VFS_FONT_FILES: FontFiles = {
  normal: VFS_DIR + FONT_FILES.normal,
  bold: VFS_DIR + FONT_FILES.bold,
  italics: VFS_DIR + FONT_FILES.italics,
  bolditalics: VFS_DIR + FONT_FILES.bolditalics,
};

let engine: PdfMakeServer | undefined;

/**
 * Loads pdfmake and the Roboto fonts it ships (`pdfmake/build/vfs_fonts.js`, base64 TTFs) into
 * pdfmake's in-memory virtual file system, once per process. Also denies every URL and local-file
 * access pdfmake might attempt: the fonts come from memory and the document holds no images or
 * links, so rendering never touches the network or the disk.
 */
function pdfEngine(): PdfMakeServer {
  if (engine === undefined) {
    const require = createRequire(import.meta.url);
    const pdfmake = require('pdfmake') as PdfMakeServer;
    const vfsFonts = require('pdfmake/build/vfs_fonts.js') as Record<string, string>;
    for (const file of Object.values(FONT_FILES) as string[]) {
      const base64 = vfsFonts[file];
      if (base64 === undefined) throw new Error(`pdfmake vfs_fonts.js has no ${file}`);
      pdfmake.virtualfs.writeFileSync(VFS_DIR + file, Buffer.from(base64, 'base64'));
    }
    pdfmake.addFonts({ [FONT_FAMILY]: VFS_FONT_FILES });
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy(() => false);
    engine = pdfmake;
  }
  // Another module calling pdfmake.setFonts() would drop our family; re-adding is cheap.
  if (engine.fonts?.[FONT_FAMILY] === undefined) {
    engine.addFonts({ [FONT_FAMILY]: VFS_FONT_FILES });
  }
  return engine;
}

/** C0 controls except TAB/LF/CR, DEL and C1 controls: no glyph in Roboto, shown as U+FFFD instead. */
const NON_PRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

function printable(text: string): string {
  return text.replace(NON_PRINTABLE, '\uFFFD');
}

/** `YYYY-MM-DD HH:MM:SS UTC`; throws RangeError for an invalid Date. */
function formatUtc(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('generatedAt is not a valid Date');
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * Renders the `pdf` device report (CONTRACT.md §6: title, tenant, generation time, device count and a
 * table of mac/name/firmware version) with pdfmake 0.3's server API
 * (`pdfmake.createPdf(docDefinition).getBuffer()`).
 *
 * Layout: A4 portrait; heading "Device report", then "Tenant: …", "Generated: YYYY-MM-DD HH:MM:SS UTC",
 * "Devices: N"; then a table with the header row MAC | Name | Firmware version, repeated on every
 * page, and one row per device in input order; footer "Page i of n". Text uses the embedded Roboto
 * (Latin, Greek, Cyrillic; scripts Roboto lacks, e.g. CJK, have no glyphs). Control characters are
 * shown as U+FFFD; LF, CR or CRLF breaks the line inside its cell. Long values wrap inside their column.
 *
 * Resolves to the complete PDF file (`%PDF-` … `%%EOF`). Rejects with RangeError when
 * `meta.generatedAt` is an invalid Date. CPU-bound and mostly synchronous: 10,000 rows took about
 * 2 s (≈210 A4 pages, ≈0.9 MB) on the development machine, blocking the event loop meanwhile.
 * No network access and no file writes.
 */
export async function renderPdfReport(rows: DeviceRow[], meta: ReportMeta): Promise<Buffer> {
  const generated = formatUtc(meta.generatedAt);
  const pdfmake = pdfEngine();

  const body: object[][] = [
    [
      { text: 'MAC', style: 'tableHeader' },
      { text: 'Name', style: 'tableHeader' },
      { text: 'Firmware version', style: 'tableHeader' },
    ],
  ];
  for (const row of rows) {
    body.push([
      { text: printable(row.mac) },
      { text: printable(row.name) },
      { text: printable(row['firmware-version']) },
    ]);
  }

  const docDefinition = {
    info: {
      title: 'Device report',
      subject: `Devices of tenant ${printable(meta.tenantName)}`,
      creator: 'firmledger',
      creationDate: meta.generatedAt,
    },
    pageSize: 'A4',
    pageOrientation: 'portrait',
    pageMargins: [40, 40, 40, 50],
    defaultStyle: { font: FONT_FAMILY, fontSize: 9 },
    styles: {
      title: { fontSize: 18, bold: true, margin: [0, 0, 0, 8] },
      meta: { fontSize: 10, margin: [0, 0, 0, 2] },
      tableHeader: { bold: true, fillColor: '#eeeeee' },
    },
    footer: (currentPage: number, pageCount: number) => ({
      text: `Page ${currentPage} of ${pageCount}`,
      alignment: 'right',
      fontSize: 8,
      margin: [40, 20, 40, 0],
    }),
    content: [
      { text: 'Device report', style: 'title' },
      { text: [{ text: 'Tenant: ', bold: true }, printable(meta.tenantName)], style: 'meta' },
      { text: [{ text: 'Generated: ', bold: true }, generated], style: 'meta' },
      { text: [{ text: 'Devices: ', bold: true }, String(rows.length)], style: 'meta' },
      {
        margin: [0, 10, 0, 0],
        table: {
          headerRows: 1, // pdfmake repeats header rows at the top of every page
          // Percentages are fixed widths (paddings already deducted): pdfmake hard-wraps a long
          // unbroken value inside a fixed column, whereas '*'/'auto' columns would grow to the
          // longest word and push the table off the page.
          widths: ['24%', '50%', '26%'],
          body,
        },
        layout: 'lightHorizontalLines',
      },
    ],
  };

  return pdfmake.createPdf(docDefinition).getBuffer();
}
