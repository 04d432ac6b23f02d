import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { getDocumentProxy } from 'unpdf';
import { createExtractor } from '../../../src/providers/extraction/extractor.ts';
import { scannedPageImage } from '../../../src/providers/extraction/formats/pdf-scan.ts';
import { findTesseract } from '../../../src/providers/extraction/native-tesseract.ts';
import type { OcrEngineName } from '../../../src/providers/extraction/ocr-choice.ts';
import { englishLangPath, OcrEngine } from '../../../src/providers/extraction/ocr-engine.ts';
import { GlobalFonts } from '@napi-rs/canvas';
import { FONT_FAMILY, textCanvas, textPng } from '../../fixtures/extraction/media.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { extractionFixture, fixtureDir, wordRecall } from './helpers.ts';

const PARAGRAPH = [
  'Invoice number 4471 was issued to Northwind Traders',
  'on the fifth of March for consulting services.',
  'Payment is due within thirty days of receipt.',
  'Please contact accounts with any questions.',
];

describe('OCR test images', () => {
  it('are drawn with the font file of the repository, not a font of this machine', () => {
    textPng(['x'], { width: 20, height: 20, fontPx: 10 });
    assert.ok(
      GlobalFonts.families.some((f) => f.family === FONT_FAMILY),
      'the committed test font is registered',
    );
  });
});

// Both engines where the system has tesseract (CI installs it), tesseract.js alone elsewhere.
const ENGINES: OcrEngineName[] = findTesseract() ? ['tesseract.js', 'tesseract'] : ['tesseract.js'];

for (const engine of ENGINES)
  describe(`OCR with ${engine}`, () => {
    const t = extractionFixture({ ocrEngine: engine });

    it('reports OCR as available, and which engine reads (the English data ships with npm install)', async () => {
      assert.equal(t.extractor.capabilities().ocr, true);
      assert.equal(t.extractor.capabilities().ocrEngine, engine);
    });

    it('reads a PNG of text: at least 90% of the words, with size metadata', async () => {
      const input = await t.files.write('scan.png', textPng(PARAGRAPH, { width: 1400, height: 420, fontPx: 32 }));
      const content = await t.extractor.extract(input);
      const recall = wordRecall(PARAGRAPH.join(' '), content.text);
      assert.ok(recall >= 0.9, `recognised ${Math.round(recall * 100)}% of the words: ${JSON.stringify(content.text)}`);
      assert.equal(content.metadata.width, 1400);
      assert.equal(content.metadata.height, 420);
      assert.equal(content.metadata.ocr, true);
      assert.equal(content.pages, null);
    });

    it('OCRs a PDF page without a text layer, and leaves pages with one alone', async () => {
      // A 150-dpi "scan" of a letter page embedded as an image.
      const scan = textCanvas(PARAGRAPH, { width: 1275, height: 1650, fontPx: 26, margin: 150 });
      const input = await t.files.write('mixed.pdf', pdf([{ lines: ['Cover page text'] }, { image: scan }]));
      const content = await t.extractor.extract(input);
      assert.equal(content.pages?.[0], 'Cover page text');
      const recall = wordRecall(PARAGRAPH.join(' '), content.pages?.[1] ?? '');
      assert.ok(
        recall >= 0.9,
        `recognised ${Math.round(recall * 100)}% of the words: ${JSON.stringify(content.pages?.[1])}`,
      );
      assert.equal(content.metadata.ocr, true);
      assert.equal(content.metadata.ocr_pages, 1);
    });

    it('shrinks a huge image before OCR (a 9000 px wide JPEG still reads)', async () => {
      const big = await sharp(textPng(PARAGRAPH, { width: 1400, height: 420, fontPx: 32 }))
        .resize(9000)
        .jpeg({ quality: 80 })
        .toBuffer();
      const content = await t.extractor.extract(await t.files.write('huge.jpg', big));
      assert.equal(content.metadata.width, 9000);
      assert.ok(wordRecall(PARAGRAPH.join(' '), content.text) >= 0.9, content.text);
    });

    it('OCRs every page of a multi-page scan, from the scanned image and from a rendered page', async () => {
      const texts = [PARAGRAPH, PARAGRAPH.map((l) => l.toUpperCase()), [...PARAGRAPH].reverse()];
      const scans = texts.map((lines) => ({
        image: textCanvas(lines, { width: 1275, height: 1650, fontPx: 26, margin: 150 }),
      }));
      // The third page has a text layer of one space and the scan under it: not a bare image, so it is rendered.
      const input = await t.files.write('scan3.pdf', pdf([scans[0]!, scans[1]!, { ...scans[2]!, overlay: ' ' }]));
      const reports: number[] = [];
      const content = await t.extractor.extract({
        ...input,
        onProgress: (p) => reports.push(p.total === 3 ? p.done : Number.NaN),
      });
      // Each page counted once its OCR is done, in page order (`processing_progress`).
      assert.deepEqual(reports, [0, 1, 2, 3]);
      assert.equal(content.pages?.length, 3);
      texts.forEach((lines, i) => {
        const recall = wordRecall(lines.join(' '), content.pages?.[i] ?? '');
        assert.ok(
          recall >= 0.9,
          `page ${i + 1}: recognised ${Math.round(recall * 100)}% of the words: ${JSON.stringify(content.pages?.[i])}`,
        );
      });
      assert.equal(content.metadata.ocr_pages, 3);
      assert.equal(content.metadata.ocr_skipped_pages, undefined);
      assert.equal(content.metadata.truncated, undefined);
    });

    it("skips the scanned pages whose OCR no longer fits in the file's maximum time, and keeps the text layers", async () => {
      // Each OCR'd page must be given 60 s, but the file may take 5 s in all: no page is started.
      const limited = createExtractor({
        threads: 1,
        timeoutMs: 5_000,
        ocrPageTimeoutMs: 60_000,
        maxTimeoutMs: 5_000,
        ocrEngine: engine,
      });
      try {
        const scan = textCanvas(PARAGRAPH, { width: 1275, height: 1650, fontPx: 26, margin: 150 });
        const content = await limited.extract(
          await t.files.write('limited.pdf', pdf([{ lines: ['Cover page text'] }, { image: scan }, { image: scan }])),
        );
        assert.deepEqual(content.pages, ['Cover page text', '', '']);
        assert.equal(content.metadata.ocr_pages, undefined);
        assert.equal(content.metadata.ocr_skipped_pages, 2);
        assert.equal(content.metadata.truncated, true);
      } finally {
        await limited.close();
      }
    });
  });

describe('scanned PDF pages', () => {
  it('a bare scan is read from its image at the page size asked; anything drawn over it needs rendering', async () => {
    const files = await fixtureDir();
    try {
      const scan = textCanvas(PARAGRAPH, { width: 1275, height: 1650, fontPx: 26, margin: 150 });
      const input = await files.write('two.pdf', pdf([{ image: scan }, { image: scan, overlay: 'x' }]));
      const doc = await getDocumentProxy(new Uint8Array(await readFile(input.path)), {
        isEvalSupported: false,
        verbosity: 0,
      });
      try {
        const limits = { short: 2000, long: 2800 };
        // 3 pixels per point: a letter page (612 x 792 pt) becomes 1836 x 2376.
        const image = await scannedPageImage(await doc.getPage(1), 3, limits);
        assert.deepEqual(
          { width: image?.width, height: image?.height, bytes: image?.data.length },
          { width: 1836, height: 2376, bytes: 1836 * 2376 },
        );
        // Capped like a rendered page: never more than 2000 x 2800.
        const capped = await scannedPageImage(await doc.getPage(1), 300 / 72, limits);
        assert.deepEqual([capped?.width, capped?.height], [2000, 2588]);
        assert.equal(await scannedPageImage(await doc.getPage(2), 3, limits), null);
      } finally {
        await doc.destroy();
      }
    } finally {
      await files.cleanup();
    }
  });
});

describe('OCR engine', () => {
  it('replaces its tesseract worker after the configured number of images, and keeps reading', async () => {
    const engine = new OcrEngine({ langPath: englishLangPath() as string, recycleAfter: 2 });
    try {
      const { data, info } = await sharp(textPng(PARAGRAPH, { width: 1400, height: 420, fontPx: 32 }))
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const image = { width: info.width, height: info.height, data: new Uint8Array(data) };
      const started: number[] = [];
      for (let i = 0; i < 3; i++) {
        const result = await engine.recognize(image, { onStart: () => started.push(i) });
        assert.ok(wordRecall(PARAGRAPH.join(' '), result.text) >= 0.9, result.text);
      }
      assert.deepEqual(started, [0, 1, 2]);
      assert.equal(engine.workersStarted, 2);
    } finally {
      await engine.close();
    }
  });
});
