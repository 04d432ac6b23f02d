import type { GreyImage } from './thread-protocol.ts';

/**
 * An image shrunk, before OCR, to the size its text needs. Tesseract's LSTM reads each text line
 * scaled to the network's height, but finding the lines and cutting them out cost with the pixels:
 * the 300-dpi fixture page (x-height 12 px at 150 dpi) takes ~20-30% less of tesseract's CPU at
 * 0.7 of its size, words intact. Small type does not survive that (6-point type, x-height 6 px
 * at 150 dpi, lost 4.5% of its words at 0.73), so the factor follows the text's measured x-height,
 * not the image's size: shrunk until the x-height is TARGET_X_HEIGHT, never below MIN_FACTOR,
 * never enlarged. Measured with Debian's tesseract 5.3 (docs/benchmarks-processing.md): words
 * intact (≥ 0.998) down to an x-height of ~7 px in every size tried (6 to 14-point at 300 dpi).
 *
 * The x-height is that of the rows dense with ink (the x-height band of each line: ascenders and
 * descenders add few pixels), measured in narrow vertical strips so that a slightly skewed page
 * (whose lines drift a few pixels across a strip, not tens across the page) is not taken for
 * large type. An image without clear, regular lines (a photograph, a ruled table, a heavily
 * skewed scan) is not measured and is read at its size.
 */

/**
 * The x-height, in pixels, text is shrunk to: ~7 kept every word of the clean rendered pages
 * measured; real scans (noise, blur, faint toner) were not measured, so 10 keeps a wide margin and
 * gives up the shrink of 150-dpi pages of 10-point type (x-height ~10 px) rather than risk them.
 */
const TARGET_X_HEIGHT = 10;
/** Never below this share of the size the reader chose (a letter page at 150 dpi: not below ~105 dpi). */
const MIN_FACTOR = 0.7;
/** A smaller saving is not worth the resize and the risk. */
const MAX_FACTOR = 0.9;
/** Strips this wide (pixels): a line skewed by 2 degrees drifts ~1.4 px across one. */
const STRIP_WIDTH = 40;
/** A strip's estimate counts when it crosses at least this many lines. */
const MIN_LINES = 5;
/** And the estimate when at least this many strips agree on one. */
const MIN_STRIPS = 3;
/** A pixel darker than this is ink. */
const INK = 128;
/** A row of a strip is in an x-height band when it holds at least this share of the strip's densest rows' ink. */
const DENSE = 0.3;

/** The x-height of the image's text in pixels (median over strips), or null when its lines are not clear. */
export function xHeight({ width, height, data }: GreyImage): number | null {
  const strips = Math.floor(width / STRIP_WIDTH);
  if (strips < MIN_STRIPS || data.length < width * height) return null;
  const ink = new Uint32Array(strips * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let s = 0; s < strips; s++) {
      let count = 0;
      for (let i = row + s * STRIP_WIDTH, end = i + STRIP_WIDTH; i < end; i++) if ((data[i] as number) < INK) count++;
      ink[s * height + y] = count;
    }
  }
  const estimates: number[] = [];
  for (let s = 0; s < strips; s++) {
    const estimate = stripXHeight(ink.subarray(s * height, (s + 1) * height));
    if (estimate !== null) estimates.push(estimate);
  }
  return estimates.length >= MIN_STRIPS ? quantile(estimates, 0.5) : null;
}

/** The median height of a strip's dense runs of rows, when they are regular (most within 2x of it). */
function stripXHeight(ink: Uint32Array): number | null {
  const inked = [...ink].filter((count) => count > 1);
  if (inked.length === 0) return null;
  const threshold = Math.max(1, quantile(inked, 0.9) * DENSE);
  const runs: number[] = [];
  let run = 0;
  for (const count of ink) {
    if (count > threshold) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  if (run > 0) runs.push(run);
  if (runs.length < MIN_LINES) return null;
  const median = quantile(runs, 0.5);
  return quantile(runs, 0.25) >= median / 2 && quantile(runs, 0.75) <= median * 2 ? median : null;
}

function quantile(values: number[], q: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q)] as number;
}

/** How much to shrink the image for OCR: 1 (not at all), or a factor from MIN_FACTOR to MAX_FACTOR. */
export function ocrScale(image: GreyImage): number {
  const x = xHeight(image);
  if (x === null) return 1;
  const factor = Math.max(MIN_FACTOR, TARGET_X_HEIGHT / x);
  return factor > MAX_FACTOR ? 1 : factor;
}

/** The image as OCR should read it: shrunk as ocrScale says, or the same image. */
export async function scaledForOcr(image: GreyImage): Promise<GreyImage> {
  const factor = ocrScale(image);
  if (factor === 1) return image;
  // Loaded here, not with the thread: the readers that ask for OCR (images, PDF scans) have loaded it already.
  const { sharp } = await import('./formats/sharp.ts');
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } })
    .resize({
      width: Math.max(1, Math.round(image.width * factor)),
      height: Math.max(1, Math.round(image.height * factor)),
      fit: 'fill',
      kernel: 'lanczos3',
    })
    // A one-channel raw input would otherwise come out as three.
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}
