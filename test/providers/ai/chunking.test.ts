import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkText } from '../../../src/providers/ai/chunking.ts';
import { splitSentences } from '../../../src/providers/ai/text.ts';

const sentence = (i: number) =>
  `Sentence number ${i} talks about shipping pallets and freight invoices in some detail.`;
const paragraph = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => sentence(from + i)).join(' ');

describe('chunkText', () => {
  it('cuts at sentence boundaries into chunks near the target size, with overlap', () => {
    const text = paragraph(0, 60);
    const chunks = chunkText(text, { targetTokens: 100, overlapTokens: 30 });
    assert.ok(chunks.length > 5);
    chunks.forEach((chunk, i) => {
      assert.equal(chunk.index, i);
      assert.equal(chunk.page, null);
      assert.equal(text.slice(chunk.startOffset, chunk.startOffset + chunk.text.length), chunk.text);
      assert.ok(chunk.text.length <= 100 * 4, `chunk ${i} has ${chunk.text.length} characters`);
      assert.match(chunk.text, /^Sentence number \d+/);
      assert.match(chunk.text, /detail\.$/);
    });
    for (let i = 1; i < chunks.length; i++) {
      const previousEnd = chunks[i - 1]!.startOffset + chunks[i - 1]!.text.length;
      assert.ok(chunks[i]!.startOffset < previousEnd, 'consecutive chunks overlap');
      assert.ok(chunks[i]!.startOffset > chunks[i - 1]!.startOffset, 'chunks move forward');
    }
    assert.equal(chunks[chunks.length - 1]!.startOffset + chunks[chunks.length - 1]!.text.length, text.length);
  });

  it('keeps page numbers and never spans two pages', () => {
    const pages = [paragraph(0, 12), paragraph(100, 3), paragraph(200, 12)];
    const text = pages.join('\n\f\n');
    const chunks = chunkText(text, { pages, targetTokens: 80, overlapTokens: 0 });
    assert.deepEqual([...new Set(chunks.map((c) => c.page))], [1, 2, 3]);
    for (const chunk of chunks) {
      const expected =
        chunk.page === 1 ? 'Sentence number ' : chunk.page === 2 ? 'Sentence number 10' : 'Sentence number 2';
      assert.ok(chunk.text.startsWith(expected), `page ${chunk.page}: ${chunk.text.slice(0, 30)}`);
      assert.equal(text.slice(chunk.startOffset, chunk.startOffset + chunk.text.length), chunk.text);
    }
    assert.equal(chunks.filter((c) => c.page === 2).length, 1);
  });

  it('cuts a sentence longer than the target between words', () => {
    const text = `${'word '.repeat(500).trim()}.`;
    const chunks = chunkText(text, { targetTokens: 50, overlapTokens: 0 });
    assert.ok(chunks.length >= 10);
    for (const chunk of chunks) {
      assert.ok(chunk.text.length <= 200);
      assert.match(chunk.text, /^word/);
    }
  });

  it('uses defaults of 200 tokens with 40 of overlap, and gives nothing for empty text', () => {
    const chunks = chunkText(paragraph(0, 40));
    assert.ok(chunks.every((c) => c.text.length <= 800));
    assert.ok(chunks.length >= 4);
    assert.deepEqual(chunkText('  \n '), []);
  });
});

describe('splitSentences', () => {
  it('does not split at abbreviations, initials or decimals', () => {
    const text = 'Dr. Smith met J. R. Doe of Acme Inc. at 3.5 p.m. today. They agreed on e.g. pricing. Done!';
    assert.deepEqual(
      splitSentences(text).map((s) => s.text),
      ['Dr. Smith met J. R. Doe of Acme Inc. at 3.5 p.m. today.', 'They agreed on e.g. pricing.', 'Done!'],
    );
  });

  it('keeps headings, bullets and table rows apart but joins wrapped lines', () => {
    const text =
      'Scope of Services\nThe supplier shall provide the services described in the statement of work and\nshall report monthly.\n- first item\n- second item\nName   Qty   Price\nPens    2    $3.00';
    assert.deepEqual(
      splitSentences(text).map((s) => s.text),
      [
        'Scope of Services',
        'The supplier shall provide the services described in the statement of work and\nshall report monthly.',
        '- first item',
        '- second item',
        'Name   Qty   Price',
        'Pens    2    $3.00',
      ],
    );
  });
});
