import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PdfTools } from '../../src/providers/files/pdf-tools.ts';
import { tinyPdf } from '../modules/documents/helpers.ts';
import { pdfContentBomb } from '../fixtures/extraction/bombs.ts';

const bytes = () => new Uint8Array(tinyPdf('Idle thread test'));

describe('PdfTools thread', () => {
  it('extracts text, exits when idle, and starts again on the next call', async () => {
    const tools = new PdfTools({ idleMs: 100 });
    try {
      const first = await tools.extractText(bytes());
      assert.match(first.text, /Idle thread test/);
      assert.equal(tools.running, true);
      for (let i = 0; i < 50 && tools.running; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(tools.running, false, 'the idle thread exited');
      const again = await tools.extractText(bytes());
      assert.match(again.text, /Idle thread test/);
    } finally {
      await tools.close();
    }
  });

  it('a call made while the idle thread is closing is served by a new thread', async () => {
    const tools = new PdfTools({ idleMs: 1 });
    try {
      await tools.extractText(bytes());
      // The idle close and these calls race; every call must still be answered.
      const results = await Promise.all([tools.extractText(bytes()), tools.extractText(bytes())]);
      for (const r of results) assert.match(r.text, /Idle thread test/);
    } finally {
      await tools.close();
    }
  });
});

describe('PdfTools document information', () => {
  it('reads the author and title of the information dictionary, and nothing when absent', async () => {
    const tools = new PdfTools({ idleMs: 50 });
    try {
      const withInfo = await tools.extractText(
        new Uint8Array(tinyPdf('Report', { author: 'Ada Lovelace', title: 'Q3 Report' })),
      );
      assert.deepEqual(withInfo.info, { author: 'Ada Lovelace', title: 'Q3 Report' });
      assert.equal(withInfo.pages, 1);
      const without = await tools.extractText(bytes());
      assert.deepEqual(without.info, {});
    } finally {
      await tools.close();
    }
  });
});

describe('PdfTools under the decode budget', () => {
  it('a first page whose content stream inflates past the budget fails its call; calls behind it and after it are served by a new thread', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pdf-tools-test-'));
    const tools = new PdfTools({ idleMs: 50, maxDecodedMb: 8 });
    try {
      const bomb = join(dir, 'bomb.pdf');
      await writeFile(bomb, pdfContentBomb(256 * 1024 * 1024));
      const [rendered, queued] = await Promise.allSettled([
        tools.renderFirstPageOfFile(bomb, 128),
        tools.extractText(bytes()),
      ]);
      assert.equal(rendered.status, 'rejected');
      assert.match(
        String((rendered as PromiseRejectedResult).reason),
        /the PDF file has a compressed stream \(FlateDecode\) that unpacks to more than the 8 MB allowed/,
      );
      assert.equal(queued.status, 'fulfilled');
      assert.match((queued as PromiseFulfilledResult<{ text: string }>).value.text, /Idle thread test/);
      assert.match((await tools.extractText(bytes())).text, /Idle thread test/);
    } finally {
      await tools.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
