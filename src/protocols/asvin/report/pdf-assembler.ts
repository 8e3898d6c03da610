import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFObjectCopier,
  PDFRef,
  PDFString,
  StandardFontEmbedder,
  StandardFonts,
  type PDFObject,
} from '@cantoo/pdf-lib';

/** What the assembled document says about itself (its Info dictionary). */
export interface PdfInfo {
  title: string;
  subject: string;
  creator: string;
  creationDate: Date;
}

/** Name of the footer font in each page's font resources. */
const FOOTER_FONT = 'FirmledgerFooter';
/** Footer: 8 pt, right-aligned at the right margin (40 pt), its baseline 23 pt above the page's bottom edge. */
const FOOTER = { size: 8, right: 40, baseline: 23 } as const;

const ascii = (text: string): Uint8Array => Buffer.from(text, 'latin1');

/**
 * Joins PDF documents page by page into one, written out as it goes: each added document's pages
 * (and the fonts, resources and contents they use) are copied with pdf-lib and written at once,
 * so memory holds one input document at a time, plus a few numbers per page. The pages get one
 * page tree and a footer `Page i of n`, drawn once the last page is known (each page refers to
 * its footer's content stream from the start; the stream is written at the end, which PDF allows).
 * The footer uses Helvetica, one of the fonts every PDF reader has, so nothing is embedded for it.
 */
export class PdfAssembler {
  private readonly context = PDFContext.create();
  private readonly pagesRef: PDFRef;
  private readonly footerFontRef: PDFRef;
  /** `q` and `Q`: a page's own contents run between them, so the footer sees the default coordinates. */
  private readonly saveRef: PDFRef;
  private readonly restoreRef: PDFRef;
  // The embedder types its font names as an enum of its own with the same values (pdf-lib casts too).
  private readonly footerFont = StandardFontEmbedder.for(
    StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0],
    FOOTER_FONT,
  );
  /** Byte offset of each object written, by object number. */
  private readonly offsets: number[] = [];
  private readonly pages: { ref: PDFRef; footer: PDFRef; width: number }[] = [];
  private written = 0;
  private started = false;

  constructor(private readonly info: PdfInfo) {
    this.pagesRef = this.context.nextRef();
    this.footerFontRef = this.footerFont.embedIntoContext(this.context);
    this.saveRef = this.context.register(this.context.stream('q'));
    this.restoreRef = this.context.register(this.context.stream('Q'));
  }

  /** Pages added so far. */
  get pageCount(): number {
    return this.pages.length;
  }

  /**
   * Copies the first `pageCount` pages of `pdf` (all when omitted) after the pages added so far,
   * and returns the bytes to write next (the file's header first, the first time).
   */
  async add(pdf: Uint8Array, pageCount?: number): Promise<Uint8Array[]> {
    const source = await PDFDocument.load(pdf, { updateMetadata: false });
    const copier = PDFObjectCopier.for(source.context, this.context);
    for (const page of source.getPages().slice(0, pageCount)) {
      const leaf = copier.copy(page.node);
      const footer = this.context.nextRef();
      leaf.set(PDFName.of('Parent'), this.pagesRef);
      // pdfkit leaves its flipped coordinate system (`1 0 0 -1 0 h cm`) in force at the end of a page.
      const contents = leaf.get(PDFName.of('Contents'));
      const own = contents instanceof PDFArray ? contents.asArray() : [contents as PDFObject];
      leaf.set(PDFName.of('Contents'), this.context.obj([this.saveRef, ...own, this.restoreRef, footer]));
      this.fontsOf(leaf).set(PDFName.of(FOOTER_FONT), this.footerFontRef);
      this.pages.push({ ref: this.context.register(leaf), footer, width: page.getWidth() });
    }
    return this.flush();
  }

  /** The bytes that end the file: the footers, the page tree, the catalog, Info, cross-reference table and trailer. */
  finish(): Uint8Array[] {
    const total = this.pages.length;
    for (const [index, page] of this.pages.entries()) {
      const text = `Page ${index + 1} of ${total}`;
      const x = page.width - FOOTER.right - this.footerFont.widthOfTextAtSize(text, FOOTER.size);
      const operators = `BT /${FOOTER_FONT} ${FOOTER.size} Tf ${x.toFixed(2)} ${FOOTER.baseline} Td ${this.footerFont.encodeText(text).toString()} Tj ET`;
      this.context.assign(page.footer, this.context.stream(operators));
    }
    this.context.assign(this.pagesRef, this.context.obj({ Type: 'Pages', Kids: this.pages.map((page) => page.ref), Count: total }));
    const root = this.context.register(this.context.obj({ Type: 'Catalog', Pages: this.pagesRef }));
    const info = this.context.register(
      this.context.obj({
        Title: PDFHexString.fromText(this.info.title),
        Subject: PDFHexString.fromText(this.info.subject),
        Creator: PDFHexString.fromText(this.info.creator),
        Producer: PDFHexString.fromText('firmledger (pdfmake, pdf-lib)'),
        CreationDate: PDFString.fromDate(this.info.creationDate),
      }),
    );
    const chunks = this.flush();
    const size = this.context.largestObjectNumber + 1;
    let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
    for (let n = 1; n < size; n++) {
      const offset = this.offsets[n];
      xref += offset === undefined ? '0000000000 00000 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`;
    }
    const trailer = this.context.obj({ Size: size, Root: root, Info: info });
    chunks.push(ascii(`${xref}trailer\n${trailer.toString()}\nstartxref\n${this.written}\n%%EOF\n`));
    return chunks;
  }

  /** The page's font resources dictionary (created when it has none). */
  private fontsOf(leaf: PDFDict): PDFDict {
    const resourcesEntry = leaf.get(PDFName.of('Resources'));
    let resources = resourcesEntry === undefined ? undefined : this.context.lookup(resourcesEntry, PDFDict);
    if (resources === undefined) {
      resources = this.context.obj({});
      leaf.set(PDFName.of('Resources'), resources);
    }
    const fontEntry = resources.get(PDFName.of('Font'));
    let fonts = fontEntry === undefined ? undefined : this.context.lookup(fontEntry, PDFDict);
    if (fonts === undefined) {
      fonts = this.context.obj({});
      resources.set(PDFName.of('Font'), fonts);
    }
    return fonts;
  }

  /** Writes every object the context holds (then forgets it): their bytes, the header first the first time. */
  private flush(): Uint8Array[] {
    const chunks: Uint8Array[] = [];
    const emit = (bytes: Uint8Array) => {
      chunks.push(bytes);
      this.written += bytes.length;
    };
    if (!this.started) {
      this.started = true;
      emit(ascii('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n'));
    }
    for (const [ref, object] of this.context.enumerateIndirectObjects()) {
      this.offsets[ref.objectNumber] = this.written;
      const body = new Uint8Array(object.sizeInBytes());
      object.copyBytesInto(body, 0);
      emit(ascii(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
      emit(body);
      emit(ascii('\nendobj\n'));
      this.context.delete(ref);
    }
    return chunks;
  }
}
