import { parse } from 'csv-parse';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import secureJsonParse from 'secure-json-parse';

/** The row formats of a bulk device import (docs/decisions.md §14). */
export const IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The fields a row may have; `mac` and `controller_id` are two names of the identifier (docs/decisions.md §11). */
export const IMPORT_FIELDS = [
  'mac',
  'controller_id',
  'device_type',
  'firmware_version',
  'name',
  'group',
  'attributes',
  'protocol',
  'target_token',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** One row as read: its line (1-based; a CSV record over several lines: its last) and its fields, not yet checked. */
export interface ImportRow {
  line: number;
  /** A CSV cell is text (an empty cell is absent); an NDJSON field any JSON value. */
  fields: Partial<Record<ImportField, unknown>>;
}

/** A row, or the file as a whole, that cannot be read: the line and the field it names. */
export class RowProblem extends Error {
  constructor(
    readonly line: number,
    readonly field: string,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const KNOWN = new Set<string>(IMPORT_FIELDS);

/**
 * The rows of `input` in `format`, read as they arrive (nothing held but the row at hand).
 *
 * - CSV (RFC 4180, read by csv-parse): a header line naming the columns, from
 *   {@link IMPORT_FIELDS}; empty cells are absent; `attributes` is a JSON object as text. A
 *   byte-order mark is ignored, blank lines are skipped.
 * - NDJSON: one JSON object a line, its keys from {@link IMPORT_FIELDS}; blank lines are skipped.
 * @throws RowProblem for an unknown column or key, a line that is not CSV or not a JSON object.
 */
export async function* readImportRows(input: Readable, format: ImportFormat): AsyncGenerator<ImportRow> {
  if (format === 'csv') yield* csvRows(input);
  else yield* ndjsonRows(input);
}

async function* csvRows(input: Readable): AsyncGenerator<ImportRow> {
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    info: true,
    columns: (header: string[]) => {
      const unknown = header.find((name) => !KNOWN.has(name));
      if (unknown !== undefined) throw new RowProblem(1, unknown, `unknown column "${unknown}" (columns: ${IMPORT_FIELDS.join(', ')})`);
      return header;
    },
  });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      const fields: Partial<Record<ImportField, unknown>> = {};
      for (const [key, value] of Object.entries(record)) if (value !== '') fields[key as ImportField] = value;
      yield { line: info.lines, fields };
    }
  } catch (error) {
    if (error instanceof RowProblem) throw error;
    const csv = error as { code?: unknown; lines?: unknown; message?: unknown };
    if (typeof csv.code === 'string' && csv.code.startsWith('CSV_') && typeof csv.lines === 'number') {
      throw new RowProblem(csv.lines, 'csv', csvMessage(csv.code, String(csv.message)));
    }
    throw error;
  }
}

/** A csv-parse error as a short text (its own message names its option names). */
function csvMessage(code: string, message: string): string {
  if (code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' || code === 'CSV_RECORD_INCONSISTENT_COLUMNS')
    return 'the row does not have as many cells as the header';
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted cell is not closed';
  return `not CSV (${message.replace(/^Invalid [^:]*: /, '')})`;
}

async function* ndjsonRows(input: Readable): AsyncGenerator<ImportRow> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = secureJsonParse.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text, undefined, {
        protoAction: 'error',
        constructorAction: 'error',
      });
    } catch {
      throw new RowProblem(line, 'ndjson', 'not a JSON object');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new RowProblem(line, 'ndjson', 'not a JSON object');
    const unknown = Object.keys(parsed).find((key) => !KNOWN.has(key));
    if (unknown !== undefined) throw new RowProblem(line, unknown, `unknown field "${unknown}" (fields: ${IMPORT_FIELDS.join(', ')})`);
    yield { line, fields: parsed };
  }
}
