import type { GreyImage } from './thread-protocol.ts';

/**
 * Where a page can be cut in two for two tesseract processes to read its halves at once: the middle
 * of a blank gap between text lines, as near as can be to the row that has half the page's ink
 * above it (so the two halves take about as long). Null when the page is too small to be worth a
 * second process, or has no such gap in its middle part (a photograph, a page of one tall figure):
 * a cut through a line of text would lose that line.
 */

/** Pages shorter than this are read whole: a second process's start-up (~0.1 s) would not pay. */
const MIN_ROWS = 1000;
/** A pixel darker than this is ink. */
const INK = 128;
/** A gap is at least this many blank rows: tesseract reads a line badly when its glyphs touch the edge. */
const MIN_GAP_ROWS = 4;
/** The cut stays within this share of the height either side of the half-ink row. */
const WINDOW = 0.2;

export function bandCut(image: GreyImage): number | null {
  const { width, height, data } = image;
  if (height < MIN_ROWS || data.length < width * height) return null;
  // A speck of scanner noise does not make a row inky; a glyph's stroke does.
  const noise = Math.max(2, Math.floor(width / 500));
  const ink = new Uint32Array(height);
  let total = 0;
  for (let y = 0, i = 0; y < height; y++) {
    let count = 0;
    for (const end = i + width; i < end; i++) if ((data[i] as number) < INK) count++;
    ink[y] = count;
    total += count;
  }
  if (total === 0) return null;
  let half = 0;
  for (let sum = 0; half < height && sum < total / 2; half++) sum += ink[half] as number;

  const reach = Math.floor(height * WINDOW);
  let best: number | null = null;
  for (let y = Math.max(1, half - reach), end = Math.min(height - 1, half + reach); y < end; ) {
    if ((ink[y] as number) > noise) {
      y++;
      continue;
    }
    const start = y;
    while (y < end && (ink[y] as number) <= noise) y++;
    if (y - start < MIN_GAP_ROWS) continue;
    const middle = Math.floor((start + y) / 2);
    if (best === null || Math.abs(middle - half) < Math.abs(best - half)) best = middle;
  }
  return best;
}

/** The rows above and from `cut`: views of the same pixels, no copy. */
export function bands(image: GreyImage, cut: number): [GreyImage, GreyImage] {
  const { width, height, data } = image;
  return [
    { width, height: cut, data: data.subarray(0, cut * width) },
    { width, height: height - cut, data: data.subarray(cut * width, height * width) },
  ];
}
