import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { PageProgress, type Pages } from '../../../src/modules/processing/page-progress.ts';

describe('page progress of an extraction', () => {
  it('writes the first and last page at once, holds the ones in between to one write per interval', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      const written: Pages[] = [];
      const progress = new PageProgress(
        async (p) => {
          written.push(p);
        },
        () => Date.now(),
        1000,
      );
      progress.report({ done: 0, total: 10 });
      progress.report({ done: 1, total: 10 });
      progress.report({ done: 2, total: 10 });
      await Promise.resolve();
      assert.deepEqual(written, [{ done: 0, total: 10 }]);
      // The page held back is written when the interval ends: a long next page shows the pages before it.
      mock.timers.tick(1000);
      await new Promise(setImmediate);
      assert.deepEqual(written.at(-1), { done: 2, total: 10 });
      progress.report({ done: 3, total: 10 });
      progress.report({ done: 10, total: 10 });
      await progress.settled();
      assert.deepEqual(written, [
        { done: 0, total: 10 },
        { done: 2, total: 10 },
        { done: 10, total: 10 },
      ]);
    } finally {
      mock.timers.reset();
    }
  });

  it('a failed write does not stop the later ones', async () => {
    const written: number[] = [];
    let fail = true;
    const progress = new PageProgress(
      async (p) => {
        if (fail) {
          fail = false;
          throw new Error('the document was deleted');
        }
        written.push(p.done);
      },
      () => 0,
      0,
    );
    progress.report({ done: 1, total: 3 });
    progress.report({ done: 2, total: 3 });
    await progress.settled();
    progress.report({ done: 3, total: 3 });
    await progress.settled();
    assert.deepEqual(written, [2, 3]);
  });
});
