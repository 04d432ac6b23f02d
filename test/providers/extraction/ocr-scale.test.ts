import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ocrScale, scaledForOcr, xHeight } from '../../../src/providers/extraction/ocr-scale.ts';

/**
 * A white page of text-like lines: each line `x` rows dense with ink (the x-height band), with
 * `x / 2` sparse rows above and below (ascenders, descenders: one inked pixel in 20), then a gap.
 * `skew` shifts each column down by that many rows per 100 columns.
 */
function page(options: { width?: number; height?: number; x: number; gap?: number; skew?: number }) {
  const { width = 1200, height = 1600, x, gap = x, skew = 0 } = options;
  const data = new Uint8Array(width * height).fill(255);
  const extra = Math.ceil(x / 2);
  const pitch = x + 2 * extra + gap;
  for (let top = 100; top + pitch < height - 100; top += pitch) {
    for (let col = 50; col < width - 50; col++) {
      const shift = Math.round((col * skew) / 100);
      for (let r = 0; r < x + 2 * extra; r++) {
        const y = top + r + shift;
        if (y >= height) continue;
        const dense = r >= extra && r < extra + x;
        if (dense || col % 20 === 0) data[y * width + col] = 0;
      }
    }
  }
  return { width, height, data };
}

describe('shrinking an image for OCR by the size of its text', () => {
  it('measures the x-height band of the lines, not their ascenders and descenders', () => {
    assert.equal(xHeight(page({ x: 12 })), 12);
    assert.equal(xHeight(page({ x: 6 })), 6);
    // Lines set tight (ascenders of one touch descenders of the next) keep their x-height.
    assert.equal(xHeight(page({ x: 10, gap: 0 })), 10);
  });

  it('is not misled by a slightly skewed page', () => {
    const x = xHeight(page({ x: 6, skew: 3.5 }));
    assert.ok(x !== null && x >= 6 && x <= 8, String(x));
  });

  it('shrinks large text down to the target x-height, never below 0.7, never small text', () => {
    assert.equal(ocrScale(page({ x: 12 })), 10 / 12);
    assert.equal(ocrScale(page({ x: 20 })), 0.7);
    assert.equal(ocrScale(page({ x: 10 })), 1);
    assert.equal(ocrScale(page({ x: 6 })), 1);
  });

  it('leaves an image without regular lines as it is', () => {
    const blank = { width: 1200, height: 1600, data: new Uint8Array(1200 * 1600).fill(255) };
    const dark = { width: 1200, height: 1600, data: new Uint8Array(1200 * 1600) };
    assert.equal(xHeight(blank), null);
    assert.equal(xHeight(dark), null);
    // Two tall blocks (a photograph above a figure): too few lines to tell a text size.
    const blocks = page({ x: 400, gap: 200 });
    assert.equal(ocrScale(blocks), 1);
    // Too narrow to measure in strips.
    assert.equal(xHeight({ width: 100, height: 1600, data: new Uint8Array(100 * 1600).fill(255) }), null);
  });

  it('answers a shrunk greyscale copy, or the same image when it keeps its size', async () => {
    const large = page({ x: 20 });
    const scaled = await scaledForOcr(large);
    assert.deepEqual([scaled.width, scaled.height, scaled.data.length], [840, 1120, 840 * 1120]);
    assert.equal(xHeight(scaled), 14);
    const small = page({ x: 6 });
    assert.equal(await scaledForOcr(small), small);
  });
});
