/**
 * A first cell that is a column header: a column's name (`mac`, `MAC address`, `controllerId`…), or
 * text no device identifier can be (a mac, or a controller id of letters, digits and `-._~!$&'()*+,;=:@`).
 */
const HEADER = /^(mac( address)?|controller[ _-]?id|identifier|device( id)?|id)$|[^A-Za-z0-9\-._~!$&'()*+,;=:@]/i;

/**
 * Device identifiers (macs, controller ids) from pasted text or a CSV file: the first cell of each
 * line (cells split at `,` or `;`, quotes removed), or each word of a line without those separators
 * (pasted lists). Empty lines, and a first line that is a header ({@link HEADER}), are skipped.
 * Whether each is a valid identifier is the server's call: it names the first one that is not.
 */
export function macsFromText(text: string): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const cellsOf = (line: string) =>
    (/[,;]/.test(line) ? [line.split(/[,;]/)[0]] : line.trim().split(/\s+/)).map((cell) =>
      cell
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .trim(),
    );
  if (lines.length > 0 && HEADER.test(cellsOf(lines[0])[0])) lines.shift();
  return lines.flatMap(cellsOf).filter((cell) => cell !== '');
}

/** Macs per request: the operator API takes JSON bodies up to 16 KiB (about 700 macs). */
export const MACS_PER_REQUEST = 500;

/** `items` in chunks of `size`. */
export function chunks<T>(items: readonly T[], size = MACS_PER_REQUEST): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
