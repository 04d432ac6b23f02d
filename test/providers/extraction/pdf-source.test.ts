import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { describe, it } from 'node:test';
import { getResolvedPDFJS } from 'unpdf';
import {
  hasCrossReference,
  MAX_REPAIRED_PDF_BYTES,
  openPdf,
} from '../../../src/providers/extraction/formats/pdf-source.ts';
import { textCanvas } from '../../fixtures/extraction/media.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { extractionFixture, noise, rejectsWith } from './helpers.ts';

/** The same PDF with its `startxref` offset pointing at `offset` instead of the table. */
function withStartxref(file: Buffer, offset: number): Buffer {
  const text = file.toString('latin1');
  const at = text.lastIndexOf('startxref');
  return Buffer.from(text.slice(0, at) + text.slice(at).replace(/startxref\s+\d+/, `startxref\n${offset}`), 'latin1');
}

describe('PDF sources: intact, damaged, by ranges', () => {
  const t = extractionFixture();

  const intact = pdf([{ lines: ['First page text'] }, { lines: ['Second page text'] }]);

  it('tells an intact end of file from a damaged one', async () => {
    const check = async (name: string, bytes: Buffer) => {
      const { path } = await t.files.write(name, bytes);
      const fd = openSync(path, 'r');
      try {
        return hasCrossReference(fd, bytes.length);
      } finally {
        closeSync(fd);
      }
    };
    assert.equal(await check('intact.pdf', intact), true);
    // Writers append junk after %%EOF; the last `startxref` still counts.
    assert.equal(await check('junk-after.pdf', Buffer.concat([intact, noise(2000)])), true);
    // A cross-reference stream ("N 0 obj") is a table too.
    const header = Buffer.from('%PDF-1.7\n');
    const stream = Buffer.concat([
      header,
      Buffer.from('5 0 obj\n<< /Type /XRef >>\nstream\nendstream\nendobj\nstartxref\n9\n%%EOF\n'),
    ]);
    assert.equal(await check('xref-stream.pdf', stream), true);
    assert.equal(await check('cut.pdf', intact.subarray(0, intact.length - 40)), false);
    assert.equal(await check('wrong-offset.pdf', withStartxref(intact, 3)), false);
    assert.equal(await check('beyond.pdf', withStartxref(intact, intact.length + 10)), false);
    assert.equal(await check('noise.pdf', Buffer.concat([header, noise(100_000)])), false);
  });

  it('a damaged PDF within the limit is rebuilt by pdf.js and read', async () => {
    const content = await t.extractor.extract(await t.files.write('rebuilt.pdf', withStartxref(intact, 3)));
    assert.deepEqual(content.pages, ['First page text', 'Second page text']);
  });

  it('a damaged PDF over the limit fails as corrupt, saying why, and the thread serves the next file', async () => {
    const size = MAX_REPAIRED_PDF_BYTES + 1024 * 1024;
    const damaged = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size - 9, 0x20)]);
    await rejectsWith(
      t.extractor.extract(await t.files.write('big-damaged.pdf', damaged)),
      'corrupt',
      /the PDF file is corrupt or truncated: it has no valid cross-reference table, and a damaged PDF over 32 MB is not rebuilt \(this one is 33 MB\)/,
    );
    // As large but intact, it is read: the limit is on rebuilding, not on size.
    const big = await t.files.write('big-intact.pdf', padded(intact, size));
    assert.deepEqual((await t.extractor.extract(big)).pages, ['First page text', 'Second page text']);
  });

  it('by ranges: the same pages, each object read from the file when a page asks for it', async () => {
    // A photo that does not compress: the file is mostly its 360 KB, in the middle.
    const photo = noisePhoto(600);
    const bytes = pdf([
      { lines: ['Text before the photo'] },
      { image: photo, overlay: 'caption' },
      { lines: ['Text after'] },
    ]);
    const { path } = await t.files.write('ranges.pdf', bytes);
    const whole = await openPdf(path, { maxImageSize: 50_000_000 });
    const ranged = await openPdf(path, { maxImageSize: 50_000_000, ranges: true });
    try {
      assert.equal(ranged.pdf.numPages, 3);
      assert.deepEqual(await pageStrings(ranged.pdf, 1), ['Text before the photo']);
      // The photo's bytes are overwritten after both were opened: read whole, the document still
      // has them; by ranges, it reads them only now, and decodes another picture.
      const fd = openSync(path, 'r+');
      try {
        writeSync(fd, Buffer.alloc(200_000), 0, 200_000, 100_000);
      } finally {
        closeSync(fd);
      }
      const before = await photoOf(whole.pdf, 2);
      const after = await photoOf(ranged.pdf, 2);
      assert.equal(before?.width, 600);
      assert.ok(before?.data && !Buffer.from(before.data).equals(Buffer.from(after?.data ?? [])));
      for (const n of [2, 3]) assert.deepEqual(await pageStrings(ranged.pdf, n), await pageStrings(whole.pdf, n));
    } finally {
      await whole.close();
      await ranged.close();
    }
  });

  it('a long PDF is read by ranges and opened afresh on the way, every page in order', async () => {
    // Five pages, each a 4 MB photo that does not compress with a caption: 20 MB, so read by
    // ranges (over 8 MB), and reopened once 16 MB have been read.
    const photo = noisePhoto(2000);
    const bytes = pdf(Array.from({ length: 5 }, (_, i) => ({ image: photo, overlay: `caption ${i + 1}` })));
    assert.ok(bytes.length > 19_000_000, `${bytes.length} bytes`);
    const content = await t.extractor.extract(await t.files.write('long.pdf', bytes));
    assert.deepEqual(content.pages, ['caption 1', 'caption 2', 'caption 3', 'caption 4', 'caption 5']);
    assert.equal(content.metadata.pages, 5);
  });
});

/** A square greyscale picture of noise, which deflate cannot shrink: `side`² bytes in a PDF. */
function noisePhoto(side: number) {
  const photo = textCanvas([], { width: side, height: side, fontPx: 10 });
  const pixels = photo.getContext('2d').createImageData(side, side);
  pixels.data.set(noise(pixels.data.length));
  photo.getContext('2d').putImageData(pixels, 0, 0);
  return photo;
}

/** The decoded image a page paints, or null when it cannot be decoded. */
async function photoOf(
  doc: Awaited<ReturnType<typeof openPdf>>['pdf'],
  number: number,
): Promise<{ width: number; data?: Uint8Array } | null> {
  const { OPS } = await getResolvedPDFJS();
  const page = await doc.getPage(number);
  const { fnArray, argsArray } = await page.getOperatorList();
  const id = (argsArray[fnArray.indexOf(OPS.paintImageXObject)] as [string])[0];
  return new Promise((resolve) => (id.startsWith('g_') ? page.commonObjs : page.objs).get(id, resolve));
}

async function pageStrings(doc: Awaited<ReturnType<typeof openPdf>>['pdf'], number: number): Promise<string[]> {
  const page = await doc.getPage(number);
  const content = await page.getTextContent();
  return content.items.flatMap((item) => ('str' in item && item.str.trim() !== '' ? [item.str] : []));
}

/** The same PDF with an object nothing refers to, of about `bytes`, after its header line, and every offset moved to match. */
function padded(file: Buffer, bytes: number): Buffer {
  const text = file.toString('latin1');
  const body = text.indexOf('\n') + 1;
  const filler = `999 0 obj\n<< /Length ${bytes} >>\nstream\n${' '.repeat(bytes)}\nendstream\nendobj\n`;
  const moved = text
    .slice(body)
    .replace(
      /^(\d{10}) (\d{5}) n $/gm,
      (_, offset: string, gen: string) => `${String(Number(offset) + filler.length).padStart(10, '0')} ${gen} n `,
    )
    .replace(/startxref\n(\d+)/, (_, offset: string) => `startxref\n${Number(offset) + filler.length}`);
  return Buffer.from(text.slice(0, body) + filler + moved, 'latin1');
}
