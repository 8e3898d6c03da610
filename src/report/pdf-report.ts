import { createRequire } from 'node:module';
import { type FallbackFont, pdfmakeVfsFont, reportFonts, type ReportFonts } from './report-fonts.js';
import type { DeviceRow, ReportMeta } from './report-row.js';

export { fallbackFontsAvailable } from './report-fonts.js';

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
/** Fallback font families are this plus 1, 2, … in order of registration. */
const FALLBACK_FAMILY_PREFIX = 'FirmledgerReportFallback';
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

/** pdfmake family of each fallback font file registered so far, by path. */
const fallbackFamilies = new Map<string, { family: string; files: FontFiles }>();

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
    for (const file of Object.values(FONT_FILES) as string[]) {
      pdfmake.virtualfs.writeFileSync(VFS_DIR + file, pdfmakeVfsFont(file));
    }
    pdfmake.addFonts({ [FONT_FAMILY]: VFS_FONT_FILES });
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy(() => false);
    engine = pdfmake;
  }
  // Another module calling pdfmake.setFonts() would drop our families; re-adding is cheap.
  if (engine.fonts?.[FONT_FAMILY] === undefined) {
    engine.addFonts({ [FONT_FAMILY]: VFS_FONT_FILES });
  }
  for (const { family, files } of fallbackFamilies.values()) {
    if (engine.fonts?.[family] === undefined) engine.addFonts({ [family]: files });
  }
  return engine;
}

/**
 * The pdfmake family of each fallback font, registering new ones: the file's bytes go into pdfmake's
 * virtual file system (like Roboto, so the local-access policy can stay closed) under a family of their
 * own whose four faces are that one file (fallback fonts have a single face).
 */
function fallbackFamiliesOf(pdfmake: PdfMakeServer, fonts: readonly FallbackFont[]): Map<FallbackFont, string> {
  const families = new Map<FallbackFont, string>();
  for (const font of fonts) {
    let entry = fallbackFamilies.get(font.path);
    if (entry === undefined) {
      const n = fallbackFamilies.size + 1;
      const file = `${VFS_DIR}fallback-${n}-${font.path.split('/').at(-1) ?? 'font'}`;
      pdfmake.virtualfs.writeFileSync(file, font.data);
      entry = { family: `${FALLBACK_FAMILY_PREFIX}${n}`, files: { normal: file, bold: file, italics: file, bolditalics: file } };
      pdfmake.addFonts({ [entry.family]: entry.files });
      fallbackFamilies.set(font.path, entry);
    }
    families.set(font, entry.family);
  }
  return families;
}

/** C0 controls except TAB/LF/CR, DEL and C1 controls: no glyph in Roboto, shown as U+FFFD instead. */
const NON_PRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

function printable(text: string): string {
  return text.replace(NON_PRINTABLE, '\uFFFD');
}

/** A pdfmake inline: a plain string (default font) or a run in a fallback family. */
type Inline = string | { text: string; font: string };

/**
 * User-provided text as pdfmake inlines: control characters shown as U+FFFD, then split into font runs
 * (Roboto, or the fallback font that has the glyphs). Text all in Roboto stays one plain string.
 * Whitespace in a fallback run becomes an inline of its own (same font): pdfmake shapes each word with
 * its trailing space, and fontkit mirrors a right-to-left word, which would move that space to the
 * word's left edge and glue it to the next word.
 */
function userText(value: string, fonts: ReportFonts, families: Map<FallbackFont, string>): Inline[] {
  const text = printable(value);
  const runs = fonts.runs(text);
  if (runs.every((run) => run.font === null)) return [text];
  const inlines: Inline[] = [];
  for (const run of runs) {
    if (run.font === null) {
      inlines.push(run.text);
      continue;
    }
    const font = families.get(run.font) as string;
    for (const piece of run.text.split(/(\s+)/)) if (piece !== '') inlines.push({ text: piece, font });
  }
  return inlines;
}

/** A table cell of user-provided text. */
function cell(inlines: Inline[]): object {
  return { text: inlines.length === 1 && typeof inlines[0] === 'string' ? inlines[0] : inlines };
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
 * page, and one row per device in input order; footer "Page i of n". Control characters are shown as
 * U+FFFD; LF, CR or CRLF breaks the line inside its cell. Long values wrap inside their column.
 *
 * Fonts (CONTRACT.md §6: renders any Unicode name): fixed text and every character Roboto has (Latin,
 * Greek, Cyrillic) use the embedded Roboto; in user-provided text (tenant name, macs, names, versions)
 * other characters use the first fallback font with a glyph for them (see `ReportFonts.runs`), embedded
 * as a subset. `options.fallbackFonts` lists the fallback font files (OpenType/TrueType paths, in order
 * of preference; read once per process); when omitted, the GNU Unifont system locations are searched
 * (`UNIFONT_SYSTEM_PATHS`: CJK, Arabic, Devanagari, Hangul, …, and emoji from `unifont_upper`). Files
 * that do not exist, cannot be read or are no font are skipped silently; with no fallback font at all,
 * such text is drawn with Roboto and shows no glyphs (check once with `fallbackFontsAvailable`).
 * Fallback text is shaped by fontkit word by word, without bidi reordering: a right-to-left word reads
 * correctly, but Arabic letters stay unjoined (Unifont has no joining rules) and the words of a
 * right-to-left phrase stay in logical order from left to right.
 *
 * Resolves to the complete PDF file (`%PDF-` … `%%EOF`). Rejects with RangeError when
 * `meta.generatedAt` is an invalid Date. CPU-bound and mostly synchronous: 10,000 rows took about
 * 2 s (≈210 A4 pages, ≈0.8 MB with Latin names, ≈1 MB with CJK names) on the development machine,
 * blocking the event loop meanwhile. Reads the fallback font files once; no network access and no
 * file writes.
 */
export async function renderPdfReport(
  rows: DeviceRow[],
  meta: ReportMeta,
  options: { fallbackFonts?: readonly string[] } = {},
): Promise<Buffer> {
  const generated = formatUtc(meta.generatedAt);
  const pdfmake = pdfEngine();
  const fonts = reportFonts(options.fallbackFonts);
  const families = fallbackFamiliesOf(pdfmake, fonts.fallbacks);
  const text = (value: string): Inline[] => userText(value, fonts, families);

  const body: object[][] = [
    [
      { text: 'MAC', style: 'tableHeader' },
      { text: 'Name', style: 'tableHeader' },
      { text: 'Firmware version', style: 'tableHeader' },
    ],
  ];
  for (const row of rows) {
    body.push([cell(text(row.mac)), cell(text(row.name)), cell(text(row['firmware-version']))]);
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
      { text: [{ text: 'Tenant: ', bold: true }, ...text(meta.tenantName)], style: 'meta' },
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
