import { createIsomorphicCanvasFactory, getResolvedPDFJS } from 'unpdf';
import type { GreyImage } from '../thread-protocol.ts';
import { collectGarbage } from './collect-garbage.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata, isoDate } from './context.ts';
import { scannedPageImage } from './pdf-scan.ts';
import { PageTexts } from './page-texts.ts';
import { openPdf, type PdfDocument } from './pdf-source.ts';
import { joinPages, normaliseText, TextBuilder } from './text-utils.ts';

/**
 * Pages without text are OCR'd at 150 dpi (never larger than 2000 x 2800 px): tesseract scales each
 * text line to the same height before recognising it, so 300 dpi only adds layout work (the
 * 300-dpi letter scan: 1.65 s of native tesseract CPU at 2000 x 2588, 1.36 s at 1275 x 1650, word
 * accuracy 1.00 at both; 6-point type reads whole down to ~130 dpi; image.ts has the figures).
 */
const OCR_DPI = 150;
const OCR_MAX_SIZE = { short: 2000, long: 2800 };
const STRIP_ROWS = 256;
/** Images above 50 megapixels are not decoded: a page is never worth that much memory. */
const MAX_IMAGE_PIXELS = 50_000_000;
/**
 * A larger file is read by ranges (pdf-source.ts), so that it costs what its pages need, not its
 * size. A smaller one is read whole: cheaper in time (a 5-page text PDF: ~8 ms whole, ~10 by
 * ranges) for memory that does not matter.
 */
const RANGES_ABOVE_BYTES = 8 * 1024 * 1024;
/**
 * pdf.js keeps every byte it read until the document is closed: once this much has been read by
 * ranges, the file is opened afresh for the next page, so a 300 MB scan costs what a few of its
 * pages cost.
 */
const REOPEN_AFTER_BYTES = 16 * 1024 * 1024;

type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/**
 * PDF: the text layer of each page through pdf.js (unpdf); a page without one is OCR'd, from its
 * scanned image when it is a bare scan (pdf-scan.ts), else rendered. Metadata from the information
 * dictionary.
 */
export const readPdf: FormatReader = async ({ path, size, ocr, ocrFits, ocrParallel, progress }) => {
  const options = { maxImageSize: MAX_IMAGE_PIXELS, ranges: size > RANGES_ABOVE_BYTES };
  let source = await openPdf(path, options);
  try {
    const out = new TextBuilder();
    const numPages = source.pdf.numPages;
    let done = 0;
    progress(0, numPages);
    const pages = new PageTexts(ocrParallel, (text) => {
      progress(++done, numPages);
      return out.add(`${text}\n\n`);
    });
    let ocrSkipped = 0;
    for (let number = 1; number <= numPages && pages.more; number++) {
      if (source.rangeBytes() > REOPEN_AFTER_BYTES) {
        await source.close();
        source = await openPdf(path, options);
      }
      const pdf = source.pdf;
      const page = await pdf.getPage(number);
      try {
        const text = normaliseText(await pageText(page));
        if (/[\p{L}\p{N}]/u.test(text) || !ocr) {
          await pages.text(text);
        } else if (!ocrFits()) {
          ocrSkipped++;
          await pages.text(text);
        } else {
          const scale = ocrScale(page);
          const image = (await scannedPageImage(page, scale, OCR_MAX_SIZE)) ?? (await renderGrey(page, scale));
          // Drop the decoded page images (tens of MB) before the OCR engine takes its share.
          page.cleanup();
          await pdf.cleanup();
          collectGarbage();
          // The next page is prepared while this one is read, when the engine reads more than one at once.
          await pages.ocr(ocr(image).then((result) => ({ ...result, text: normaliseText(result.text) })));
        }
      } finally {
        page.cleanup();
      }
    }
    const texts = await pages.finish();
    const { ocrPages, confidence } = pages;
    const info = await source.pdf.getMetadata().catch(() => null);
    const dict = (info?.info ?? {}) as Record<string, unknown>;
    return {
      text: out.truncated ? normaliseText(out.toString()) : joinPages(texts),
      pages: texts,
      metadata: compactMetadata({
        author: str(dict.Author),
        title: str(dict.Title),
        subject: str(dict.Subject),
        created: await pdfDate(dict.CreationDate),
        modified: await pdfDate(dict.ModDate),
        pages: numPages,
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
    // Closing twice (the reopening failed) is harmless.
    await source.close();
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
    await page.render({
      canvas: drawing.canvas as HTMLCanvasElement,
      canvasContext: context,
      viewport,
      background: '#ffffff',
    }).promise;
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
