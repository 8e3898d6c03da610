import { XMLBuilder } from 'fast-xml-parser';
import type { DeviceRow } from './report-row.js';

/**
 * Characters outside the XML 1.0 `Char` production (XML 1.0 5th ed. §2.2): the C0 controls other
 * than TAB, LF and CR, the non-characters U+FFFE/U+FFFF, and unpaired UTF-16 surrogates.
 */
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;

/** U+FFFD REPLACEMENT CHARACTER: a visible marker that a character could not be represented. */
const REPLACEMENT = '\uFFFD';

/**
 * One builder for the process: `build()` is synchronous and keeps no state between calls.
 * Entity processing (on by default) escapes `&`, `<`, `>`, `'` and `"` in text content.
 */
const builder = new XMLBuilder({
  ignoreAttributes: false, // needed for the attributes of the `?xml` declaration
  attributeNamePrefix: '@_',
  format: false,
  suppressEmptyNode: false,
  processEntities: true,
});

/** Replaces every character XML 1.0 cannot carry with U+FFFD; TAB, LF and CR are kept. */
function xmlSafe(text: string): string {
  return text.replace(XML_FORBIDDEN, REPLACEMENT);
}

/** The empty document, split where the elements go: `<?xml …?><root>` and `</root>`. */
const [XML_HEAD, XML_TAIL] = ((empty: string) => {
  const at = empty.lastIndexOf('</root>');
  return [empty.slice(0, at), empty.slice(at)];
})(builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, root: '' }));

/**
 * Renders the `xml` device report (docs/decisions.md §6, docs/device-interface.md "report of devices").
 *
 * Shape: `<?xml version="1.0" encoding="UTF-8"?><root><element><firmware-version>…</firmware-version>
 * <mac>…</mac><name>…</name></element>…</root>`, compact (no whitespace between tags), one `element`
 * per row in input order, children always in the order `firmware-version`, `mac`, `name`. No rows
 * gives `<?xml version="1.0" encoding="UTF-8"?><root></root>`. The caller encodes the string as UTF-8.
 *
 * Text is escaped (`&` `<` `>` `"` `'` become entity references). Characters XML 1.0 forbids
 * (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+FFFE, U+FFFF, unpaired surrogates) are REPLACED
 * by U+FFFD, so the document is always well-formed; TAB, LF and CR pass through unchanged.
 * Does not throw for any string input.
 */
export function renderXmlReport(rows: Iterable<DeviceRow>): string {
  return XML_HEAD + xmlElements(rows) + XML_TAIL;
}

/** The `element`s of some rows, as in {@link renderXmlReport}; `''` for none. */
function xmlElements(rows: Iterable<DeviceRow>): string {
  const element: Array<Record<'firmware-version' | 'mac' | 'name', string>> = [];
  for (const row of rows) {
    // Insertion order of these keys is the element order in the output.
    element.push({
      'firmware-version': xmlSafe(row['firmware-version']),
      mac: xmlSafe(row.mac),
      name: xmlSafe(row.name),
    });
  }
  return element.length > 0 ? builder.build({ element }) : '';
}

/**
 * The document of {@link renderXmlReport}, byte for byte, as chunks: one per page of rows, so
 * the whole document is never in memory. The first chunk comes once the first page is read.
 */
export async function* xmlReportChunks(pages: AsyncIterable<readonly DeviceRow[]>): AsyncGenerator<string> {
  let head = XML_HEAD;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield head + xmlElements(page);
    head = '';
  }
  yield head + XML_TAIL;
}
