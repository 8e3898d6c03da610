import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { create, type Font } from 'fontkit';

/**
 * Well-known system locations of GNU Unifont (a bitmap font with a glyph for nearly every code point of
 * the Basic Multilingual Plane; `unifont_upper` covers the upper planes, e.g. emoji). Searched in this
 * order when the caller names no fallback fonts; files that do not exist are skipped.
 */
export const UNIFONT_SYSTEM_PATHS: readonly string[] = [
  '/usr/share/fonts/opentype/unifont/unifont.otf', // Debian ≥ bookworm, Ubuntu (fonts-unifont)
  '/usr/share/fonts/opentype/unifont/unifont_upper.otf',
  '/usr/share/fonts/truetype/unifont/unifont.ttf', // Debian bullseye and other distributions' TTF builds
  '/usr/share/fonts/truetype/unifont/unifont_upper.ttf',
  '/usr/share/fonts/unifont/unifont.otf', // Fedora (unifont-fonts), Alpine (font-unifont)
  '/usr/share/fonts/unifont/unifont_upper.otf', // the same directory, where the package ships it
];

/** The primary font: Roboto Regular as pdfmake ships it (`pdfmake/build/vfs_fonts.js`). */
export const PRIMARY_FONT_FILE = 'Roboto-Regular.ttf';

/** At most this many fallback fonts are used (coverage is cached as a 32-bit mask per code point). */
export const MAX_FALLBACK_FONTS = 31;

/** A fallback font file, read and parsed once. */
export interface FallbackFont {
  /** The path it was read from, as given. */
  readonly path: string;
  /** The file's bytes (what pdfmake embeds a subset of). */
  readonly data: Buffer;
  /** The parsed font (fontkit), used for coverage checks. */
  readonly font: Font;
}

/** A listed font file that is not used, and why (missing, unreadable, not a single font). */
export interface SkippedFont {
  readonly path: string;
  readonly reason: string;
}

/** A piece of text drawn with one font: `font` is `null` for the primary font (Roboto). */
export interface TextRun {
  text: string;
  font: FallbackFont | null;
}

/** Options of {@link ReportFonts}. */
export interface ReportFontsOptions {
  /**
   * Fallback font files (OpenType/TrueType paths) in order of preference. When given (even empty), only
   * these are used; when omitted, the existing files among `searchPaths` are.
   */
  fallbackFonts?: readonly string[];
  /** Where to look when `fallbackFonts` is omitted; default {@link UNIFONT_SYSTEM_PATHS}. */
  searchPaths?: readonly string[];
  /** Bytes of the primary font; default pdfmake's {@link PRIMARY_FONT_FILE}. */
  primaryFont?: Buffer;
}

/**
 * The bytes of a font file from pdfmake's bundled virtual file system (`pdfmake/build/vfs_fonts.js`,
 * base64 TTFs), e.g. `Roboto-Regular.ttf`. Throws Error when pdfmake does not ship that file.
 */
export function pdfmakeVfsFont(file: string): Buffer {
  const require = createRequire(import.meta.url);
  const vfsFonts = require('pdfmake/build/vfs_fonts.js') as Record<string, string>;
  const base64 = vfsFonts[file];
  if (base64 === undefined) throw new Error(`pdfmake vfs_fonts.js has no ${file}`);
  return Buffer.from(base64, 'base64');
}

/** Text that needs no lookup: printable ASCII, all in Roboto. */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/**
 * Code points that stay in the surrounding run when its font has them, so a space or hyphen between two
 * CJK words does not switch fonts: whitespace, punctuation, ASCII symbols, combining marks (they must
 * stay with their base letter), zero-width (non-)joiners and variation selectors.
 */
const STICKY = /^[\p{White_Space}\p{P}\p{M}\x21-\x2F\x3A-\x40\x5B-\x60\x7B-\x7E\u200B-\u200D\u2060]$/u;

/** Index of the primary font in run bookkeeping; fallbacks are 0, 1, … */
const PRIMARY = -1;

/**
 * The fonts of the PDF report and which of them draws each code point: Roboto first, then the
 * fallback fonts in order (docs/decisions.md §6: the report renders any Unicode name). Fallback files are
 * found, read and parsed at first use, then kept; coverage is cached per code point, so splitting
 * thousands of names costs a Map lookup per character after the first sight of it.
 */
export class ReportFonts {
  private primary: Font | undefined;
  private loaded: { fonts: FallbackFont[]; skipped: SkippedFont[] } | undefined;
  /** Code point → bit mask of the fonts that have a glyph for it (bit 0 primary, bit i+1 fallback i). */
  private readonly coverage = new Map<number, number>();

  constructor(private readonly options: ReportFontsOptions = {}) {}

  /** The usable fallback fonts, in order of preference (empty when none exists). Loads them at first call. */
  get fallbacks(): readonly FallbackFont[] {
    return this.load().fonts;
  }

  /** Listed fallback files that are not used, with the reason (a missing file included). */
  get skipped(): readonly SkippedFont[] {
    return this.load().skipped;
  }

  /**
   * Splits `text` into runs of consecutive code points drawn with the same font, in text order; their
   * texts concatenate to `text` ('' gives []). Each code point goes to the first font with a glyph for
   * it (Roboto, then the fallbacks in order); one no font has stays with Roboto. Whitespace,
   * punctuation and combining marks stay in the run before them when its font has them (at the start,
   * in the run after them). Never throws for any string (lone surrogates go to Roboto).
   */
  runs(text: string): TextRun[] {
    if (text === '') return [];
    const fallbacks = this.fallbacks;
    if (fallbacks.length === 0 || PRINTABLE_ASCII.test(text)) return [{ text, font: null }];

    const runs: { text: string; index: number }[] = [];
    const append = (char: string, index: number): void => {
      const last = runs.at(-1);
      if (last !== undefined && last.index === index) last.text += char;
      else runs.push({ text: char, index });
    };
    let pending: string[] = []; // leading sticky characters, placed once the first other one is
    for (const char of text) {
      const codePoint = char.codePointAt(0) as number;
      const last = runs.at(-1);
      let index: number;
      if (STICKY.test(char)) {
        if (last === undefined) {
          pending.push(char);
          continue;
        }
        index = this.covers(last.index, codePoint) ? last.index : this.fontFor(codePoint);
      } else {
        index = this.fontFor(codePoint);
        for (const sticky of pending) {
          const code = sticky.codePointAt(0) as number;
          append(sticky, this.covers(index, code) ? index : this.fontFor(code));
        }
        pending = [];
      }
      append(char, index);
    }
    for (const sticky of pending) append(sticky, this.fontFor(sticky.codePointAt(0) as number));
    return runs.map((run) => ({ text: run.text, font: run.index === PRIMARY ? null : fallbacks[run.index] }));
  }

  /** Bit mask of the fonts with a glyph for `codePoint` (cached). */
  private mask(codePoint: number): number {
    let mask = this.coverage.get(codePoint);
    if (mask === undefined) {
      this.primary ??= create(this.options.primaryFont ?? pdfmakeVfsFont(PRIMARY_FONT_FILE)) as Font;
      mask = this.primary.hasGlyphForCodePoint(codePoint) ? 1 : 0;
      for (const [i, fallback] of this.fallbacks.entries()) {
        if (fallback.font.hasGlyphForCodePoint(codePoint)) mask |= 1 << (i + 1);
      }
      this.coverage.set(codePoint, mask);
    }
    return mask;
  }

  /** The first font with a glyph for `codePoint`; PRIMARY when none has one. */
  private fontFor(codePoint: number): number {
    const mask = this.mask(codePoint);
    if (mask === 0 || (mask & 1) !== 0) return PRIMARY;
    return 31 - Math.clz32(mask & -mask) - 1; // lowest set bit, minus the primary's bit
  }

  private covers(index: number, codePoint: number): boolean {
    return (this.mask(codePoint) & (1 << (index + 1))) !== 0;
  }

  private load(): { fonts: FallbackFont[]; skipped: SkippedFont[] } {
    if (this.loaded === undefined) {
      const paths = [...new Set(this.options.fallbackFonts ?? this.options.searchPaths ?? UNIFONT_SYSTEM_PATHS)];
      const explicit = this.options.fallbackFonts !== undefined;
      const fonts: FallbackFont[] = [];
      const skipped: SkippedFont[] = [];
      for (const path of paths) {
        if (fonts.length === MAX_FALLBACK_FONTS) {
          skipped.push({ path, reason: `more than ${MAX_FALLBACK_FONTS} fallback fonts` });
          continue;
        }
        const result = loadFont(path);
        if ('reason' in result) {
          // A system location that does not exist is the normal case, not worth reporting.
          if (explicit || result.reason !== NOT_FOUND) skipped.push(result);
        } else {
          fonts.push(result);
        }
      }
      this.loaded = { fonts, skipped };
    }
    return this.loaded;
  }
}

const NOT_FOUND = 'file not found';

function loadFont(path: string): FallbackFont | SkippedFont {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { path, reason: code === 'ENOENT' || code === 'ENOTDIR' ? NOT_FOUND : `unreadable: ${(error as Error).message}` };
  }
  try {
    const font = create(data);
    if (!('hasGlyphForCodePoint' in font)) return { path, reason: 'a font collection, not a single font' };
    return { path, data, font };
  } catch (error) {
    return { path, reason: `not a font fontkit can read: ${(error as Error).message}` };
  }
}

const shared = new Map<string, ReportFonts>();

/**
 * The process-wide {@link ReportFonts} for a fallback path list (undefined: the Unifont system
 * locations), created at first use and kept, so files are read and coverage computed once.
 */
export function reportFonts(fallbackFonts?: readonly string[]): ReportFonts {
  const key = fallbackFonts === undefined ? '' : JSON.stringify(fallbackFonts);
  let fonts = shared.get(key);
  if (fonts === undefined) {
    fonts = new ReportFonts(fallbackFonts === undefined ? {} : { fallbackFonts: [...fallbackFonts] });
    shared.set(key, fonts);
  }
  return fonts;
}

/**
 * Whether the PDF report has at least one fallback font for scripts Roboto lacks (CJK, Arabic,
 * Devanagari, emoji, …): `paths` as passed to `renderPdfReport`'s `fallbackFonts`, or omitted for the
 * Unifont system locations. Reads the font files on first call. Meant for one startup warning; the
 * renderer itself logs nothing and draws uncovered text with Roboto (no glyphs) when this is false.
 */
export function fallbackFontsAvailable(paths?: readonly string[]): boolean {
  return reportFonts(paths).fallbacks.length > 0;
}
