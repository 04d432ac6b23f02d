import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Concept, LexicalIndex } from '../../../src/modules/search/lexical-index.ts';
import { termOf } from '../../../src/modules/search/search-terms.ts';

const WORDS = ['invoice', 'payment', 'lease', 'rent', 'salary', 'audit', 'coffee', 'futures', 'report', 'contract'];
const text = (i: number) =>
  Array.from({ length: 5 + (i % 7) }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
const options = { k1: 1.2, b: 0.75, mask: null, join: 'any' as const, limit: 10_000 };

function concepts(index: LexicalIndex, words: string[], soft: Record<string, [string, number][]> = {}): Concept[] {
  return words.map((w) => {
    const terms = [];
    const own = index.dictionary.find(termOf(w));
    if (own !== undefined) terms.push({ id: own, weight: 1 });
    for (const [n, weight] of soft[w] ?? []) {
      const id = index.dictionary.find(termOf(n));
      if (id !== undefined) terms.push({ id, weight });
    }
    return { terms };
  });
}

const ranking = (index: LexicalIndex, words: string[], soft?: Record<string, [string, number][]>) =>
  index
    .score(concepts(index, words, soft), options)
    .map((h) => [index.documentOf(h.slot), Number(h.score.toFixed(12))]);

describe('keyword index', () => {
  it('scores the same after documents are removed and the index compacted as an index built from the rest', () => {
    const churned = new LexicalIndex();
    for (let i = 0; i < 3000; i++) churned.put(`d${i}`, text(i));
    for (let i = 0; i < 3000; i += 3) churned.remove(`d${i}`);
    for (let i = 1; i < 3000; i += 3) churned.put(`d${i}`, `${text(i)} audit`);
    const fresh = new LexicalIndex();
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 0) continue;
      fresh.put(`d${i}`, i % 3 === 1 ? `${text(i)} audit` : text(i));
    }
    assert.equal(churned.documents, 2000);
    for (const q of [['invoice'], ['audit', 'coffee'], ['rent', 'futures', 'salary']]) {
      const a = ranking(churned, q).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      const b = ranking(fresh, q).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      assert.deepEqual(a, b, q.join(' '));
    }
  });

  it('counts a neighbour occurrence at its weight: a document holding only the neighbour ranks below one holding the word', () => {
    const index = new LexicalIndex();
    index.put('lease', 'lease of the offices');
    index.put('rent', 'rent of the offices');
    index.put('other', 'coffee futures');
    const soft = { rent: [['lease', 0.3]] as [string, number][] };
    const ranked = ranking(index, ['rent'], soft);
    assert.deepEqual(
      ranked.map((r) => r[0]),
      ['rent', 'lease'],
    );
    assert.ok((ranked[1]![1] as number) < (ranked[0]![1] as number));
    // Without soft terms the neighbour's document is not a match.
    assert.deepEqual(
      ranking(index, ['rent']).map((r) => r[0]),
      ['rent'],
    );
  });

  it('join all keeps only documents holding every concept exactly; a slot mask hides documents', () => {
    const index = new LexicalIndex();
    index.put('both', 'invoice payment');
    index.put('one', 'invoice');
    const all = index.score(concepts(index, ['invoice', 'payment']), { ...options, join: 'all' });
    assert.deepEqual(
      all.map((h) => index.documentOf(h.slot)),
      ['both'],
    );
    const masked = index.score(concepts(index, ['invoice']), { ...options, mask: index.mask(['one']) });
    assert.deepEqual(
      masked.map((h) => index.documentOf(h.slot)),
      ['one'],
    );
  });

  it("scores a few documents (hybrid scoring the other arm's finds) exactly as the full pass scores them, before and after changes", () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 4000; i++) index.put(`d${i}`, text(i));
    for (let i = 0; i < 4000; i += 5) index.remove(`d${i}`);
    const soft = { rent: [['lease', 0.3]] as [string, number][], audit: [['report', 0.45]] as [string, number][] };
    const phrase: Concept = {
      terms: ['invoice', 'payment'].map((w) => ({ id: index.dictionary.find(termOf(w))!, weight: 1 })),
      conjunctive: true,
      only: index.mask(Array.from({ length: 2000 }, (_, i) => `d${i * 2}`)),
    };
    const queries: Concept[][] = [
      concepts(index, ['invoice']),
      concepts(index, ['rent', 'audit'], soft),
      concepts(index, ['salary', 'coffee', 'futures']),
      [...concepts(index, ['contract']), phrase],
    ];
    const check = (label: string) => {
      for (const [q, query] of queries.entries()) {
        for (const join of ['any', 'all'] as const) {
          for (const coordination of [false, true]) {
            const full = index.score(query, { ...options, join, coordination });
            // Every 97th document, some that match nothing, one removed, and a mask hiding a few.
            const only = new Set<number>();
            for (let i = 1; i < 4000; i += 97) {
              const slot = index.slotOf(`d${i}`);
              if (slot !== undefined) only.add(slot);
            }
            const mask = index.mask(Array.from({ length: 4000 }, (_, i) => `d${i}`).filter((_, i) => i % 11 !== 0));
            const restricted = index.score(query, { ...options, join, coordination, mask, only, limit: 25 });
            const expected = full.filter((h) => only.has(h.slot) && mask[h.slot] === 1).slice(0, 25);
            assert.ok(expected.length > 0, `${label} ${q} ${join}: the check needs matches`);
            assert.deepEqual(restricted, expected, `${label} query ${q}, ${join}, coordination ${coordination}`);
          }
        }
      }
    };
    check('first');
    // The remembered frequencies go with any change of the documents.
    for (let i = 0; i < 600; i++) index.put(`n${i}`, 'invoice invoice rent lease audit');
    for (let i = 1; i < 400; i += 2) index.remove(`d${i}`);
    queries[3]![1] = { ...phrase, only: index.mask(Array.from({ length: 2000 }, (_, i) => `d${i * 2}`)) };
    check('after changes');
  });
});
