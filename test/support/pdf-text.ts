import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Opens a PDF with pdf.js (no eval, no system fonts), runs `read` on it, then closes it. */
export async function withPdf<T>(pdf: Buffer, read: (doc: PDFDocumentProxy) => Promise<T>): Promise<T> {
  const doc = await getDocument({
    data: new Uint8Array(pdf), // a copy: pdf.js takes ownership of the bytes it is given
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    return await read(doc);
  } finally {
    await doc.destroy();
  }
}

/**
 * Text of each page of a PDF as pdf.js extracts it (what a reader copies or searches); text items
 * are joined with `separator`, line ends kept.
 */
export async function pdfPageTexts(pdf: Buffer, separator = ' '): Promise<string[]> {
  return withPdf(pdf, async (doc) => {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : separator) : '')).join(''));
    }
    return pages;
  });
}

/** Text of all pages of a PDF, pages separated by a newline. */
export async function pdfText(pdf: Buffer): Promise<string> {
  return (await pdfPageTexts(pdf)).join('\n');
}
