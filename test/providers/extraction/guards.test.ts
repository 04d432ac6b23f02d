import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import JSZip from 'jszip';
import sharp from 'sharp';
import { createExtractor, type Extractor } from '../../../src/providers/extraction/extractor.ts';
import { docxWithPartOf, interlacedPngBomb, officeLaughs, pdfContentBomb } from '../../fixtures/extraction/bombs.ts';
import { doc, ppt, xls } from '../../fixtures/extraction/legacy.ts';
import { pngClaiming, textPng, wav } from '../../fixtures/extraction/media.ts';
import {
  docx,
  pptx,
  withUnderstatedEntry,
  xlsx,
  zipWithBigEntry,
  zipWithManyEntries,
} from '../../fixtures/extraction/office.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { extractionFixture, fixtureDir, noise, rejectsWith } from './helpers.ts';

describe('extraction guards', () => {
  const t = extractionFixture();

  it('a truncated or damaged file of each binary type fails with an error naming the format', async () => {
    const png = textPng(['truncated'], { width: 400, height: 100, fontPx: 20 });
    const samples: [string, Buffer, RegExp][] = [
      ['pdf', pdf([{ lines: ['half a pdf'] }]), /the PDF file is corrupt or truncated/],
      ['docx', await docx(['half a docx']), /the DOCX file is corrupt or truncated/],
      ['xlsx', await xlsx({ S: [['half an xlsx']] }), /the XLSX file is corrupt or truncated/],
      ['pptx', await pptx([{ texts: ['half a pptx'] }]), /the PPTX file is corrupt or truncated/],
      ['doc', doc('half a doc '.repeat(500)), /the DOC file is corrupt or truncated/],
      ['xls', xls({ S: [['half an xls'.repeat(400)]] }), /the XLS file is corrupt or truncated/],
      ['ppt', ppt([{ title: 'half a ppt' }]), /the PPT file is corrupt or truncated/],
      ['png', png, /the PNG file is corrupt or truncated/],
      ['jpg', await sharp(png).jpeg().toBuffer(), /the JPEG file is corrupt or truncated/],
      ['webp', await sharp(png).webp().toBuffer(), /the WEBP file is corrupt or truncated/],
      ['tiff', await sharp(png).tiff().toBuffer(), /the TIFF file is corrupt or truncated/],
    ];
    for (const [extension, whole, message] of samples) {
      const cut = whole.subarray(0, Math.floor(whole.length / 2));
      await rejectsWith(t.extractor.extract(await t.files.write(`cut.${extension}`, cut)), 'corrupt', message);
      await rejectsWith(
        t.extractor.extract(await t.files.write(`noise.${extension}`, noise(3000))),
        'corrupt',
        message,
      );
    }
    for (const extension of ['mp3', 'wav', 'm4a', 'mp4', 'mov']) {
      await rejectsWith(
        t.extractor.extract(
          await t.files.write(`noise.${extension}`, Buffer.from('this is not a media file '.repeat(100))),
        ),
        'corrupt',
        new RegExp(`the ${extension.toUpperCase()} file is corrupt`),
      );
    }
    // A WAV whose header promises more samples than the file holds.
    await rejectsWith(
      t.extractor.extract(await t.files.write('cut.wav', wav(2).subarray(0, 20_000))),
      'corrupt',
      /the WAV file is corrupt or truncated/,
    );
    // Still serving afterwards.
    assert.equal((await t.extractor.extract(await t.files.write('fine.txt', 'still fine'))).text, 'still fine');
  });

  it('refuses zip bombs: a hugely compressed entry, too many entries, an entry bigger than it says, too much in total', async () => {
    await rejectsWith(
      t.extractor.extract(await t.files.write('ratio.docx', await zipWithBigEntry(20))),
      'bomb',
      /DOCX file looks like a zip bomb: word\/media\/zeros.bin unpacks to 20 MB/,
    );
    await rejectsWith(
      t.extractor.extract(await t.files.write('many.pptx', await zipWithManyEntries(10_001))),
      'bomb',
      /holds 10\d\d\d files, more than the 10000 allowed/,
    );
    // 8 MB of zeros claiming to be 1 KB: passes the directory checks, caught while inflating.
    const zip = await JSZip.loadAsync(await xlsx({ S: [['x']] }));
    zip.file('xl/media/blob.bin', Buffer.alloc(8 * 1024 * 1024));
    const lying = withUnderstatedEntry(
      await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }),
      'xl/media/blob.bin',
      1024,
    );
    await rejectsWith(
      t.extractor.extract(await t.files.write('lying.xlsx', lying)),
      'bomb',
      /xl\/media\/blob.bin unpacks to more than the 1 KB it declares/,
    );
    // Eleven 600 KB incompressible entries each claiming 50 MB (under 100:1): 550 MB in total.
    const big = await JSZip.loadAsync(await docx(['total']));
    for (let i = 0; i < 11; i++) big.file(`word/media/r${i}.bin`, randomBytes(600 * 1024));
    let total = await big.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
    for (let i = 0; i < 11; i++) total = withUnderstatedEntry(total, `word/media/r${i}.bin`, 50 * 1024 * 1024);
    await rejectsWith(
      t.extractor.extract(await t.files.write('total.docx', total)),
      'bomb',
      /unpacks to 5\d\d MB, more than the 500 MB allowed/,
    );
  });

  it('refuses an image whose header claims 30000 x 30000 pixels before decoding it', async () => {
    const started = Date.now();
    await rejectsWith(
      t.extractor.extract(await t.files.write('bomb.png', pngClaiming(30_000, 30_000))),
      'bomb',
      /30000 x 30000 pixels, more than the 100 megapixels allowed/,
    );
    assert.ok(Date.now() - started < 5_000);
  });

  it('refuses unknown types and unreadable paths', async () => {
    await rejectsWith(
      t.extractor.extract({ path: '/etc/hostname', extension: 'exe', mediaType: 'application/octet-stream' }),
      'unsupported',
      /\.exe cannot be extracted/,
    );
    await rejectsWith(
      t.extractor.extract({ path: '/nonexistent/file.pdf', extension: 'pdf', mediaType: 'application/pdf' }),
      'unreadable',
    );
    await rejectsWith(t.extractor.extract(await t.files.write('empty.pdf', '')), 'corrupt', /the PDF file is empty/);
  });
});

describe('extraction limits on threads', () => {
  let files: Awaited<ReturnType<typeof fixtureDir>>;
  before(async () => {
    files = await fixtureDir();
  });
  after(() => files.cleanup());

  it('times out, terminates the thread and serves the next file with a fresh one', async () => {
    // A per-page OCR allowance below the file's own limit: the 1.5 s of the file apply.
    const extractor = createExtractor({ threads: 1, timeoutMs: 1_500, ocrPageTimeoutMs: 1 });
    try {
      // A dense page: OCR alone takes longer than the limit.
      const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of a dense scanned page with many words on it`);
      const page = await files.write('dense.png', textPng(lines, { width: 2400, height: 3200, fontPx: 40 }));
      await rejectsWith(extractor.extract(page), 'timeout', /extracting the PNG file took longer than 1.5 s/);
      const next = await extractor.extract(await files.write('after.txt', 'served by a new thread'));
      assert.equal(next.text, 'served by a new thread');
    } finally {
      await extractor.close();
    }
  });

  it('aborts through the signal, before and during the work', async () => {
    const extractor = createExtractor({ threads: 1 });
    try {
      const input = await files.write('abort.pdf', pdf([{ lines: ['abort me'] }]));
      await rejectsWith(extractor.extract({ ...input, signal: AbortSignal.abort() }), 'aborted');
      const controller = new AbortController();
      const pending = extractor.extract({ ...input, signal: controller.signal });
      controller.abort();
      await rejectsWith(pending, 'aborted', /extracting the PDF file was aborted/);
      assert.equal((await extractor.extract(input)).text, 'abort me');
    } finally {
      await extractor.close();
    }
  });

  it('a thread that runs out of memory fails only its file, with a clear error', async () => {
    const extractor = createExtractor({ threads: 1, memoryMb: 16 });
    try {
      // Normalising 5 M two-byte characters ("€" and line breaks to rewrite) builds 10 MB strings: too many for 16 MB.
      const heavy = await files.write('heavy.txt', Buffer.from('€ \r\n'.repeat(3 * 1024 * 1024)));
      await rejectsWith(
        extractor.extract(heavy),
        'too_large',
        /the text file needs more than 16 MB of memory to extract/,
      );
      assert.equal((await extractor.extract(await files.write('light.txt', 'light'))).text, 'light');
    } finally {
      await extractor.close();
    }
  });

  it('a tiny timeout fails cleanly instead of hanging', async () => {
    const extractor = createExtractor({ threads: 1, timeoutMs: 1 });
    try {
      await rejectsWith(extractor.extract(await files.write('tiny.pdf', pdf([{ lines: ['x'] }]))), 'timeout');
    } finally {
      await extractor.close();
    }
  });
});

describe('decode budget and memory watch', () => {
  const MiB = 1024 * 1024;
  let files: Awaited<ReturnType<typeof fixtureDir>>;
  let extractor: Extractor;
  before(async () => {
    files = await fixtureDir();
    // A small budget: a stream is stopped at 16 MB of output, a thread at 96 MB outside its heap.
    extractor = createExtractor({ threads: 1, maxDecodedMb: 16 });
  });
  after(async () => {
    await extractor.close();
    await files.cleanup();
  });

  it('a PDF content stream inflating past the budget fails too_large, saying so, and the next file gets a fresh thread', async () => {
    const bomb = await files.write('bomb.pdf', pdfContentBomb(256 * MiB));
    await rejectsWith(
      extractor.extract(bomb),
      'too_large',
      /^the PDF file has a compressed stream \(FlateDecode\) that unpacks to more than the 16 MB allowed$/,
    );
    assert.equal(
      (await extractor.extract(await files.write('fine.pdf', pdf([{ lines: ['after the bomb'] }])))).text,
      'after the bomb',
    );
  });

  it('a content stream under the budget is read whole', async () => {
    // 12 MB of operators (text, then spaces) inflated by the platform's DecompressionStream.
    const content = Buffer.concat([
      Buffer.from('BT /F1 12 Tf 72 720 Td (a long but honest stream) Tj ET'),
      Buffer.alloc(12 * MiB, ' '),
    ]);
    const honest = await files.write(
      'honest.pdf',
      pdf([{ encoded: deflateSync(content), filter: '/Filter /FlateDecode' }]),
    );
    assert.equal((await extractor.extract(honest)).text, 'a long but honest stream');
  });

  it("a stream pdf.js inflates itself (PNG predictors) is stopped by the thread's memory watch (twice the budget and 64 MB)", async () => {
    const bomb = await files.write('predictor.pdf', pdfContentBomb(1024 * MiB, { predictor: true }));
    await rejectsWith(
      extractor.extract(bomb),
      'too_large',
      /^the PDF file needs more than 96 MB of decoded data in memory to extract$/,
    );
    assert.equal(
      (await extractor.extract(await files.write('after.txt', 'served after the watch'))).text,
      'served after the watch',
    );
  });

  it('an Office XML part over the budget is refused before any parser holds it', async () => {
    const big = await files.write('big.docx', await docxWithPartOf(20));
    await rejectsWith(
      extractor.extract(big),
      'too_large',
      /^the DOCX file has a part \(word\/document\.xml\) that unpacks to more than the 16 MB allowed$/,
    );
  });

  it('an interlaced 16-bit PNG, which libvips decodes whole, is refused from its header when its pixels pass the budget', async () => {
    // 3000 x 3000 x 8 bytes: 69 MB decoded, from 70 KB; under the 100-megapixel cap.
    const started = Date.now();
    const png = await files.write('interlaced.png', interlacedPngBomb(3000, 3000));
    await rejectsWith(
      extractor.extract(png),
      'too_large',
      /^the PNG file has an interlaced image \(3000 x 3000, 69 MB decoded\) that unpacks to more than the 16 MB allowed$/,
    );
    assert.ok(Date.now() - started < 5_000);
  });

  it('billion laughs in a DOCX, XLSX or PPTX is never expanded: refused as corrupt, or its reference left as text', async () => {
    const laughs = await officeLaughs();
    await rejectsWith(
      extractor.extract(await files.write('laughs.docx', laughs.docx)),
      'corrupt',
      /the DOCX file is corrupt or truncated: .*entity not found/,
    );
    await rejectsWith(
      extractor.extract(await files.write('laughs.xlsx', laughs.xlsx)),
      'corrupt',
      /the XLSX file is corrupt or truncated: .*undefined entity/,
    );
    const slides = await extractor.extract(await files.write('laughs.pptx', laughs.pptx));
    assert.ok(slides.text.length < 100, `${slides.text.length} characters`);
    assert.doesNotMatch(slides.text, /lollol/);
  });
});
