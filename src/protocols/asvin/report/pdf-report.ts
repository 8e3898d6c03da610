import { createRequire } from 'node:module';
import { PdfAssembler } from './pdf-assembler.js';
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
 * The pdfmake family of a fallback font, registering it the first time: the file's bytes go into
 * pdfmake's virtual file system (like Roboto, so the local-access policy can stay closed) under a
 * family of its own whose four faces are that one file (fallback fonts have a single face).
 */
function fallbackFamilyOf(pdfmake: PdfMakeServer, font: FallbackFont): string {
  let entry = fallbackFamilies.get(font.path);
  if (entry === undefined) {
    const n = fallbackFamilies.size + 1;
    const file = `${VFS_DIR}fallback-${n}-${font.path.split('/').at(-1) ?? 'font'}`;
    pdfmake.virtualfs.writeFileSync(file, font.data);
    entry = { family: `${FALLBACK_FAMILY_PREFIX}${n}`, files: { normal: file, bold: file, italics: file, bolditalics: file } };
    pdfmake.addFonts({ [entry.family]: entry.files });
    fallbackFamilies.set(font.path, entry);
  }
  return entry.family;
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
function userText(value: string, fonts: ReportFonts, familyOf: (font: FallbackFont) => string): Inline[] {
  const text = printable(value);
  const runs = fonts.runs(text);
  if (runs.every((run) => run.font === null)) return [text];
  const inlines: Inline[] = [];
  for (const run of runs) {
    if (run.font === null) {
      inlines.push(run.text);
      continue;
    }
    const font = familyOf(run.font);
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

/** Most devices laid out by one pdfmake document: about 20 A4 pages, tens of megabytes while laid out. */
export const ROWS_PER_CHUNK = 1000;

/**
 * Most characters of device text laid out by one pdfmake document. pdfmake's memory grows with the
 * words and font runs of the text (CJK text breaks at every character), so long names take fewer
 * rows a chunk: 1,000 typical rows hold about 32,000 characters, rows of 128-character names about 190.
 */
export const CHARACTERS_PER_CHUNK = 40_000;

/** How many of `rows` (at least one) the next chunk lays out: at most {@link ROWS_PER_CHUNK} and {@link CHARACTERS_PER_CHUNK}. */
function chunkLength(rows: readonly DeviceRow[]): number {
  let characters = 0;
  for (let n = 0; n < rows.length && n < ROWS_PER_CHUNK; n++) {
    characters += rows[n].mac.length + rows[n].name.length + rows[n]['firmware-version'].length;
    if (characters > CHARACTERS_PER_CHUNK) return Math.max(1, n);
  }
  return Math.min(rows.length, ROWS_PER_CHUNK);
}

/** One pdfmake document of the report: some of its pages, and where its last page begins. */
interface RenderedChunk {
  pdf: Buffer;
  pages: number;
  /** Index (in the chunk's rows) of the first row on the last page; `undefined` when no row starts there. */
  firstRowOfLastPage: number | undefined;
}

/**
 * Lays out `rows` as the report's table (after the heading when `heading`), without a footer, and
 * notes on which page each row starts (pdfmake's `pageBreakBefore` sees every node once, with its
 * page; the function only watches, so the layout is never redone). Rows never break across pages.
 */
async function renderChunk(
  rows: readonly DeviceRow[],
  meta: ReportMeta & { deviceCount: number },
  heading: boolean,
  options: { fallbackFonts?: readonly string[] },
): Promise<RenderedChunk> {
  const generated = formatUtc(meta.generatedAt);
  const pdfmake = pdfEngine();
  const fonts = reportFonts(options.fallbackFonts);
  const text = (value: string): Inline[] => userText(value, fonts, (font) => fallbackFamilyOf(pdfmake, font));

  const body: object[][] = [
    [
      { text: 'MAC', style: 'tableHeader' },
      { text: 'Name', style: 'tableHeader' },
      { text: 'Firmware version', style: 'tableHeader' },
    ],
  ];
  for (const [index, row] of rows.entries()) {
    body.push([{ ...cell(text(row.mac)), id: `row-${index}` }, cell(text(row.name)), cell(text(row['firmware-version']))]);
  }
  const rowPages: number[] = [];
  let pages = 0;

  const docDefinition = {
    pageSize: 'A4',
    pageOrientation: 'portrait',
    pageMargins: [40, 40, 40, 50],
    defaultStyle: { font: FONT_FAMILY, fontSize: 9 },
    styles: {
      title: { fontSize: 18, bold: true, margin: [0, 0, 0, 8] },
      meta: { fontSize: 10, margin: [0, 0, 0, 2] },
      tableHeader: { bold: true, fillColor: '#eeeeee' },
    },
    content: [
      ...(heading
        ? [
            { text: 'Device report', style: 'title' },
            { text: [{ text: 'Tenant: ', bold: true }, ...text(meta.tenantName)], style: 'meta' },
            { text: [{ text: 'Generated: ', bold: true }, generated], style: 'meta' },
            { text: [{ text: 'Devices: ', bold: true }, String(meta.deviceCount)], style: 'meta' },
          ]
        : []),
      {
        margin: [0, heading ? 10 : 0, 0, 0],
        table: {
          headerRows: 1, // pdfmake repeats header rows at the top of every page
          dontBreakRows: true, // so a chunk can end after any page (see pdfReportChunks)
          // Percentages are fixed widths (paddings already deducted): pdfmake hard-wraps a long
          // unbroken value inside a fixed column, whereas '*'/'auto' columns would grow to the
          // longest word and push the table off the page.
          widths: ['24%', '50%', '26%'],
          body,
        },
        layout: 'lightHorizontalLines',
      },
    ],
    pageBreakBefore: (node: { id?: string; pageNumbers: number[]; pages: number }) => {
      pages = node.pages;
      if (node.id?.startsWith('row-')) rowPages[Number(node.id.slice(4))] = node.pageNumbers[0];
      return false;
    },
  };

  const pdf = await pdfmake.createPdf(docDefinition).getBuffer();
  const first = rowPages.findIndex((page) => page === pages);
  return { pdf, pages, firstRowOfLastPage: first === -1 ? undefined : first };
}

/**
 * Takes up to `count` more devices, in report order; fewer (or none) once there are no more.
 * The next call comes only after the previous one resolved.
 */
export type DeviceRowSource = (count: number) => Promise<DeviceRow[]>;

/**
 * The bytes of the `pdf` device report (title, tenant, generation time, device count and a table of
 * mac/name/firmware version), as they are produced, with memory bounded whatever the
 * number of devices: rows are laid out {@link ROWS_PER_CHUNK} (or {@link CHARACTERS_PER_CHUNK}) at a time by pdfmake 0.3
 * (`createPdf(docDefinition).getBuffer()`) and joined by {@link PdfAssembler}. Each chunk but the
 * last gives all but its last page; the rows of that page start the next chunk, so every page is
 * full and the pages are those of one document laid out at once (a page break falls between rows).
 *
 * Layout: A4 portrait; heading "Device report", then "Tenant: …", "Generated: YYYY-MM-DD HH:MM:SS UTC",
 * "Devices: N" (`meta.deviceCount`, counted before the rows are read); then a table with the header
 * row MAC | Name | Firmware version, repeated on every page, and one row per device in source order;
 * footer "Page i of n". Control characters are shown as U+FFFD; LF, CR or CRLF breaks the line inside
 * its cell. Long values wrap inside their column.
 *
 * Fonts (any Unicode name renders): fixed text and every character Roboto has (Latin,
 * Greek, Cyrillic) use the embedded Roboto; in user-provided text (tenant name, macs, names, versions)
 * other characters use the first fallback font with a glyph for them (see `ReportFonts.runs`), embedded
 * as a subset. `options.fallbackFonts` lists the fallback font files (OpenType/TrueType paths, in order
 * of preference; read once per process); when omitted, the GNU Unifont system locations are searched
 * (`UNIFONT_SYSTEM_PATHS`: CJK, Arabic, Devanagari, Hangul, …, and emoji from `unifont_upper`). Files
 * that do not exist, cannot be read or are no font are skipped silently; with no fallback font at all,
 * such text is drawn with Roboto and shows no glyphs (check once with `fallbackFontsAvailable`).
 * Fallback text is shaped by fontkit word by word, without bidi reordering: a right-to-left word reads
 * correctly, but Arabic letters stay unjoined (Unifont has no joining rules) and the words of a
 * right-to-left phrase stay in logical order from left to right. The footer is Helvetica.
 *
 * CPU-bound: run it off the event loop (`PdfReportRenderer` does, in a worker thread). Throws
 * RangeError when `meta.generatedAt` is an invalid Date. No network access and no file writes.
 */
export async function* pdfReportChunks(
  nextRows: DeviceRowSource,
  meta: ReportMeta & { deviceCount: number },
  options: { fallbackFonts?: readonly string[] } = {},
): AsyncGenerator<Uint8Array[]> {
  formatUtc(meta.generatedAt);
  const assembler = new PdfAssembler({
    title: 'Device report',
    subject: `Devices of tenant ${printable(meta.tenantName)}`,
    creator: 'firmledger',
    creationDate: meta.generatedAt,
  });
  let pending: DeviceRow[] = []; // rows taken from the source, not yet on a kept page
  let exhausted = false;
  for (let heading = true; ; heading = false) {
    if (!exhausted && pending.length < ROWS_PER_CHUNK) {
      const wanted = ROWS_PER_CHUNK - pending.length;
      const more = await nextRows(wanted);
      pending = pending.concat(more);
      exhausted = more.length < wanted;
    }
    const rows = pending.slice(0, chunkLength(pending));
    const last = exhausted && rows.length === pending.length;
    const chunk = await renderChunk(rows, meta, heading, options);
    // A later chunk redoes the last page's rows, so the page is full; without a row there, the page is dropped.
    const keep = last || chunk.pages === 1 ? chunk.pages : chunk.pages - 1;
    pending = pending.slice(keep === chunk.pages ? rows.length : (chunk.firstRowOfLastPage ?? rows.length));
    yield await assembler.add(chunk.pdf, keep);
    if (last) break;
  }
  yield assembler.finish();
}

/** The whole `pdf` report of `rows` in memory (see {@link pdfReportChunks}): for small reports and specs. */
export async function renderPdfReport(
  rows: readonly DeviceRow[],
  meta: ReportMeta,
  options: { fallbackFonts?: readonly string[] } = {},
): Promise<Buffer> {
  let taken = 0;
  const nextRows: DeviceRowSource = (count) => {
    const slice = rows.slice(taken, taken + count);
    taken += slice.length;
    return Promise.resolve(slice);
  };
  const chunks: Uint8Array[] = [];
  for await (const bytes of pdfReportChunks(nextRows, { ...meta, deviceCount: rows.length }, options)) chunks.push(...bytes);
  return Buffer.concat(chunks);
}
