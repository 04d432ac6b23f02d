import { MAX_IMAGE_PIXELS, wholeDecodeBytes, wholeDecodeKind } from '../../files/image-limits.ts';
import { megabytes, overBudget } from '../decode-budget.ts';
import { ExtractionError, formatLabel } from '../extraction-error.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { sharp } from './sharp.ts';
import { PageTexts } from './page-texts.ts';
import { joinPages, normaliseText } from './text-utils.ts';

/** OCR reads images at most this long on their long side: more costs memory and time, not accuracy. */
const OCR_MAX_SIDE = 2500;
/**
 * A page-shaped image (letter 1.29, A4 1.41) at least PAGE_MIN_SIDE long is taken for a scanned
 * page of 200 dpi or more, and read at about 150 dpi (1650 px is a letter page's 11 inches at 150):
 * tesseract scales each text line to the same height before recognising it, so the larger image
 * only adds layout work. Measured with Debian's tesseract (2026-11-29): the 300-dpi fixture page
 * 1.65 s of CPU at 2500 px, 1.36 s at 1650, word accuracy 1.00 at both; 6-point type (25 px at 300
 * dpi) still 1.00 at 1400 px, 0.987 at 1200.
 */
const PAGE_LONG_SIDE = 1650;
const PAGE_MIN_SIDE = 2000;
const PAGE_RATIO = { min: 1.2, max: 1.5 };
/** Small images (screenshots) are enlarged to about this long side so small type reaches tesseract's size. */
const OCR_MIN_SIDE = 1200;
/** At most this many pages of a multi-page TIFF or animated WebP are OCR'd. */
const MAX_OCR_PAGES = 50;

/**
 * JPEG, PNG, TIFF and WebP: size from the header, text by OCR of a downscaled greyscale copy.
 * Refused from the header alone: more than MAX_IMAGE_PIXELS, and an image libvips has to decode
 * whole (below) whose pixels come to more than the decode budget.
 */
export const readImage: FormatReader = async ({
  path,
  extension,
  ocr,
  ocrFits,
  ocrParallel,
  maxDecodedBytes,
  progress,
}) => {
  const label = formatLabel(extension);
  const meta = await sharp(path, { limitInputPixels: false }).metadata();
  const { width = 0, height = 0 } = meta;
  if (width <= 0 || height <= 0) throw new Error('the image has no size');
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new ExtractionError(
      'bomb',
      `the ${label} image is ${width} x ${height} pixels, more than the ${MAX_IMAGE_PIXELS / 1e6} megapixels allowed`,
    );
  }
  const whole = wholeDecodeBytes(meta);
  if (whole !== null && whole > maxDecodedBytes) {
    throw new ExtractionError(
      'too_large',
      overBudget(
        `the ${label} file`,
        `${wholeDecodeKind(meta)} (${width} x ${height}, ${megabytes(whole)} decoded)`,
        maxDecodedBytes,
      ),
    );
  }
  // Pages of a TIFF are pages of a scan; frames of an animated WebP are not worth an OCR each.
  const pageCount = meta.format === 'tiff' ? Math.max(1, meta.pages ?? 1) : 1;
  const total = Math.min(pageCount, MAX_OCR_PAGES);
  let done = 0;
  if (ocr) progress(0, total);
  const pages = new PageTexts(ocrParallel, () => {
    progress(++done, total);
    return true;
  });
  let skipped = 0;
  if (ocr) {
    for (let page = 0; page < total; page++) {
      if (page > 0 && !ocrFits()) {
        skipped = pageCount - page;
        break;
      }
      const image = await greyForOcr(path, page);
      await pages.ocr(ocr(image).then((result) => ({ ...result, text: normaliseText(result.text) })));
    }
    skipped ||= Math.max(0, pageCount - MAX_OCR_PAGES);
  }
  const texts = await pages.finish();
  const { ocrPages, confidence } = pages;
  if (!ocr) {
    // Decode once anyway, so that a damaged image fails here as it would with OCR.
    await sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'truncated' })
      .resize(64, 64, { fit: 'inside' })
      .raw()
      .toBuffer();
  }
  return {
    text: joinPages(texts),
    pages: pageCount > 1 ? texts : null,
    metadata: compactMetadata({
      width,
      height,
      format: meta.format,
      pages: pageCount > 1 ? pageCount : undefined,
      dpi: meta.density,
      ocr: ocrPages > 0 || undefined,
      ocr_confidence: ocrPages > 0 ? Math.round(confidence / ocrPages) : undefined,
      ocr_skipped_pages: skipped || undefined,
      truncated: skipped > 0 || undefined,
    }),
    media: null,
  };
};

/** The long side OCR reads an image at: a scanned page's at about 150 dpi, anything else within OCR_MIN_SIDE..OCR_MAX_SIDE. */
export function ocrLongSide(width: number, height: number): number {
  const long = Math.max(width, height);
  const ratio = long / Math.max(1, Math.min(width, height));
  if (long >= PAGE_MIN_SIDE && ratio >= PAGE_RATIO.min && ratio <= PAGE_RATIO.max) return PAGE_LONG_SIDE;
  return long > OCR_MAX_SIDE ? OCR_MAX_SIDE : long < OCR_MIN_SIDE ? Math.min(OCR_MIN_SIDE, long * 3) : long;
}

/** One page, upright (EXIF), flattened on white, greyscale, its long side as ocrLongSide says. */
async function greyForOcr(path: string, page: number) {
  const image = sharp(path, { page, limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'truncated' });
  const meta = await image.metadata();
  const target = ocrLongSide(meta.width ?? 0, meta.height ?? 0);
  const { data, info } = await image
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .resize({ width: target, height: target, fit: 'inside', kernel: 'lanczos3' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`unexpected ${info.channels} channels after greyscale`);
  return {
    width: info.width,
    height: info.height,
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}
