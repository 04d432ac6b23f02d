import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PageTexts } from '../../../src/providers/extraction/formats/page-texts.ts';
import type { OcrResult } from '../../../src/providers/extraction/thread-protocol.ts';

/** A recognition the test settles when it wants. */
function deferred() {
  let resolve!: (result: OcrResult) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<OcrResult>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether a promise has settled by the time queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('page texts with OCR in flight', () => {
  it('keeps page order when a later page is read first, and counts OCR pages and confidence', async () => {
    const sunk: string[] = [];
    const pages = new PageTexts(2, (text) => {
      sunk.push(text);
      return true;
    });
    await pages.text('cover');
    const first = deferred();
    const second = deferred();
    // Depth 2: the reader may prepare the next page while the first is read.
    assert.equal(await settled(pages.ocr(first.promise)), true);
    const secondQueued = pages.ocr(second.promise);
    assert.equal(await settled(secondQueued), false, 'a second page in flight waits for the first');
    second.resolve({ text: 'page three', confidence: 80 });
    assert.deepEqual(sunk, ['cover'], 'a later page never reaches the text before an earlier one');
    first.resolve({ text: 'page two', confidence: 90 });
    await secondQueued;
    await pages.text('back');
    assert.deepEqual(await pages.finish(), ['cover', 'page two', 'page three', 'back']);
    assert.deepEqual(sunk, ['cover', 'page two', 'page three', 'back']);
    assert.equal(pages.ocrPages, 2);
    assert.equal(pages.confidence, 170);
  });

  it('with depth 1 each OCR page is awaited before the reader goes on', async () => {
    const pages = new PageTexts(1, () => true);
    const page = deferred();
    const queued = pages.ocr(page.promise);
    assert.equal(await settled(queued), false);
    page.resolve({ text: 'one', confidence: 50 });
    await queued;
    assert.deepEqual(await pages.finish(), ['one']);
  });

  it('stops once the sink is full, and keeps the page that filled it', async () => {
    const pages = new PageTexts(2, (text) => text !== 'two');
    await pages.text('one');
    assert.equal(pages.more, true);
    await pages.text('two');
    assert.equal(pages.more, false);
    assert.deepEqual(await pages.finish(), ['one', 'two']);
  });

  it('a failed recognition fails the document when its turn comes, never as an unhandled rejection', async () => {
    const pages = new PageTexts(3, () => true);
    const failing = deferred();
    await pages.ocr(failing.promise);
    failing.reject(new Error('tesseract failed'));
    await pages.text('after');
    await assert.rejects(pages.finish(), /tesseract failed/);
  });
});
