import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ocrLongSide } from '../../../src/providers/extraction/formats/image.ts';
import { bandCut, bands } from '../../../src/providers/extraction/page-bands.ts';

/** A white page `height` rows tall with black rows where `inky(y)` says. */
function page(width: number, height: number, inky: (y: number) => boolean) {
  const data = new Uint8Array(width * height).fill(255);
  for (let y = 0; y < height; y++) if (inky(y)) data.fill(0, y * width, (y + 1) * width);
  return { width, height, data };
}

/** Lines of text: 20 inky rows, then a 20-row gap, from row `from` to row `to`. */
const lines = (from: number, to: number) => (y: number) => y >= from && y < to && (y - from) % 40 < 20;

describe('cutting a page in two bands', () => {
  it('cuts in the middle of a gap between lines, near the row with half the ink above it', () => {
    const even = page(300, 1200, lines(100, 1100));
    const cut = bandCut(even);
    assert.ok(cut !== null && cut > 500 && cut < 700, String(cut));
    assert.equal((cut - 100) % 40, 30, 'the middle of a 20-row gap');

    // Text only in the top half: the halves hold the same ink, not the same height.
    const top = bandCut(page(300, 1200, lines(40, 640)));
    assert.ok(top !== null && top > 250 && top < 400, String(top));
  });

  it('does not cut a small page, a blank one, or one without a gap in its middle', () => {
    assert.equal(bandCut(page(300, 900, lines(0, 900))), null);
    assert.equal(bandCut(page(300, 1200, () => false)), null);
    assert.equal(bandCut(page(300, 1200, (y) => y >= 100 && y < 1100)), null);
    // Gaps of 3 rows are too thin to cut through without touching the glyphs.
    assert.equal(bandCut(page(300, 1200, (y) => y % 23 < 20)), null);
  });

  it('takes a few specks in a gap for noise, not text', () => {
    const noisy = page(1000, 1200, lines(100, 1100));
    for (let y = 0; y < 1200; y++) noisy.data[y * 1000 + 7] = 0;
    assert.notEqual(bandCut(noisy), null);
  });

  it('bands are views of the rows above and from the cut', () => {
    const image = page(4, 3, (y) => y === 2);
    const [above, below] = bands(image, 2);
    assert.deepEqual([above.width, above.height, above.data.length], [4, 2, 8]);
    assert.deepEqual([below.width, below.height, [...below.data]], [4, 1, [0, 0, 0, 0]]);
    assert.equal(below.data.buffer, image.data.buffer);
  });
});

describe('the size OCR reads an image at', () => {
  it('a scanned page (page-shaped, 2000 px or more) at ~150 dpi, other images within 1200..2500 px', () => {
    assert.equal(ocrLongSide(2550, 3300), 1650); // letter at 300 dpi
    assert.equal(ocrLongSide(3508, 2480), 1650); // A4 landscape at 300 dpi
    assert.equal(ocrLongSide(2560, 1440), 2500); // a wide screenshot keeps its small type large
    assert.equal(ocrLongSide(9000, 3000), 2500);
    assert.equal(ocrLongSide(1500, 1940), 1940); // a page scanned at ~180 dpi or less is read as it is
    assert.equal(ocrLongSide(300, 100), 900);
  });
});
