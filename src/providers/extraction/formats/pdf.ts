import { readFile } from 'node:fs/promises';
import { createIsomorphicCanvasFactory, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { ExtractionError } from '../extraction-error.ts';
import type { GreyImage } from '../thread-protocol.ts';
import { collectGarbage } from './collect-garbage.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata, isoDate } from './context.ts';
import { scannedPageImage } from './pdf-scan.ts';
import { joinPages, normaliseText, TextBuilder } from './text-utils.ts';

/** Scanned pages are read at 300 dpi, but never wider or taller than a 300-dpi A4/letter page. */
const OCR_DPI = 300;
const OCR_MAX_SIZE = { short: 2000, long: 2800 };
const STRIP_ROWS = 256;

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/**
 * PDF: the text layer of each page through pdf.js (unpdf); a page without one is OCR'd, from its
 * scanned image when it is a bare scan (pdf-scan.ts), else rendered. Metadata from the information
 * dictionary.
 */
export const readPdf: FormatReader = async ({ path, ocr, ocrFits }) => {
  // A view, not `new Uint8Array(buffer)`: that would copy the file (35 MB for a 100-page scan);
  // pdf.js takes the bytes over (they are transferred to its worker side, not copied).
  const file = await readFile(path);
  const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
  let pdf: PdfDocument;
  try {
    // Images above 50 megapixels are not decoded: a page is never worth that much memory.
    pdf = await getDocumentProxy(bytes, { isEvalSupported: false, maxImageSize: 50_000_000, verbosity: 0 });
  } catch (error) {
    const name = (error as { name?: string } | null)?.name;
    if (name === 'PasswordException') throw new ExtractionError('unsupported', 'the PDF file is password-protected');
    throw error;
  }
  try {
    const out = new TextBuilder();
    const pages: string[] = [];
    let ocrPages = 0;
    let ocrSkipped = 0;
    let confidence = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      try {
        let text = normaliseText(await pageText(page));
        if (!/[\p{L}\p{N}]/u.test(text) && ocr) {
          if (ocrFits()) {
            const scale = ocrScale(page);
            const image = (await scannedPageImage(page, scale, OCR_MAX_SIZE)) ?? (await renderGrey(page, scale));
            // Drop the decoded page images (tens of MB) before the OCR engine takes its share.
            page.cleanup();
            await pdf.cleanup();
            collectGarbage();
            const result = await ocr(image);
            text = normaliseText(result.text);
            confidence += result.confidence;
            ocrPages++;
          } else {
            ocrSkipped++;
          }
        }
        pages.push(text);
        if (!out.add(`${text}\n\n`)) break;
      } finally {
        page.cleanup();
      }
    }
    const info = await pdf.getMetadata().catch(() => null);
    const dict = (info?.info ?? {}) as Record<string, unknown>;
    return {
      text: out.truncated ? normaliseText(out.toString()) : joinPages(pages),
      pages,
      metadata: compactMetadata({
        author: str(dict.Author),
        title: str(dict.Title),
        subject: str(dict.Subject),
        created: await pdfDate(dict.CreationDate),
        modified: await pdfDate(dict.ModDate),
        pages: pdf.numPages,
        language: str(dict.Language),
        ocr: ocrPages > 0 || undefined,
        ocr_pages: ocrPages || undefined,
        ocr_confidence: ocrPages > 0 ? Math.round(confidence / ocrPages) : undefined,
        // Pages left without text because the time for the file was running out.
        ocr_skipped_pages: ocrSkipped || undefined,
        truncated: out.truncated || ocrSkipped > 0 || undefined,
      }),
      media: null,
    };
  } finally {
    await pdf.destroy();
  }
};

async function pageText(page: PdfPage): Promise<string> {
  const content = await page.getTextContent();
  let text = '';
  for (const item of content.items) {
    if (!('str' in item)) continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text;
}

/** Pixels per point the OCR reads the page at. */
function ocrScale(page: PdfPage): number {
  const base = page.getViewport({ scale: 1 });
  const short = Math.min(base.width, base.height);
  const long = Math.max(base.width, base.height);
  return Math.min(OCR_DPI / 72, OCR_MAX_SIZE.short / short, OCR_MAX_SIZE.long / long);
}

/** The page rendered on a white background, as greyscale pixels. */
async function renderGrey(page: PdfPage, scale: number): Promise<GreyImage> {
  const viewport = page.getViewport({ scale });
  const CanvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
  const factory = new CanvasFactory();
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const drawing = factory.create(width, height);
  try {
    const context = drawing.context as CanvasRenderingContext2D;
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    await page.render({ canvas: drawing.canvas as HTMLCanvasElement, canvasContext: context, viewport, background: '#ffffff' }).promise;
    const grey = new Uint8Array(width * height);
    // In strips: a full-page RGBA copy would be another 30 MB at once.
    for (let top = 0; top < height; top += STRIP_ROWS) {
      const rows = Math.min(STRIP_ROWS, height - top);
      const rgba = context.getImageData(0, top, width, rows).data;
      for (let i = top * width, j = 0; j < rgba.length; i++, j += 4) {
        // ITU-R BT.601 luma.
        grey[i] = ((rgba[j] as number) * 299 + (rgba[j + 1] as number) * 587 + (rgba[j + 2] as number) * 114) / 1000;
      }
    }
    return { width, height, data: grey };
  } finally {
    factory.destroy(drawing);
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A PDF date ("D:20240131120000+01'00'") as ISO 8601. */
async function pdfDate(value: unknown): Promise<string | undefined> {
  if (typeof value !== 'string') return undefined;
  const { PDFDateString } = await getResolvedPDFJS();
  return isoDate(PDFDateString.toDateObject(value));
}
