import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createExtractor, type Extractor } from '../../../src/providers/extraction/extractor.ts';
import { textCanvas, textPng } from '../../fixtures/extraction/media.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { fixtureDir, wordRecall } from './helpers.ts';

const PARAGRAPH = [
  'Invoice number 4471 was issued to Northwind Traders',
  'on the fifth of March for consulting services.',
  'Payment is due within thirty days of receipt.',
  'Please contact accounts with any questions.',
];

describe('OCR', () => {
  let extractor: Extractor;
  let files: Awaited<ReturnType<typeof fixtureDir>>;
  before(async () => {
    extractor = createExtractor({ threads: 1 });
    files = await fixtureDir();
  });
  after(async () => {
    await extractor.close();
    await files.cleanup();
  });

  it('reports OCR as available (the English data ships with npm install)', () => {
    assert.equal(extractor.capabilities().ocr, true);
  });

  it('reads a PNG of text: at least 90% of the words, with size metadata', async () => {
    const input = await files.write('scan.png', textPng(PARAGRAPH, { width: 1400, height: 420, fontPx: 32 }));
    const content = await extractor.extract(input);
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
    const input = await files.write('mixed.pdf', pdf([{ lines: ['Cover page text'] }, { image: scan }]));
    const content = await extractor.extract(input);
    assert.equal(content.pages?.[0], 'Cover page text');
    const recall = wordRecall(PARAGRAPH.join(' '), content.pages?.[1] ?? '');
    assert.ok(recall >= 0.9, `recognised ${Math.round(recall * 100)}% of the words: ${JSON.stringify(content.pages?.[1])}`);
    assert.equal(content.metadata.ocr, true);
    assert.equal(content.metadata.ocr_pages, 1);
  });

  it('shrinks a huge image before OCR (a 9000 px wide JPEG still reads)', async () => {
    const big = await sharp(textPng(PARAGRAPH, { width: 1400, height: 420, fontPx: 32 }))
      .resize(9000)
      .jpeg({ quality: 80 })
      .toBuffer();
    const content = await extractor.extract(await files.write('huge.jpg', big));
    assert.equal(content.metadata.width, 9000);
    assert.ok(wordRecall(PARAGRAPH.join(' '), content.text) >= 0.9, content.text);
  });
});
