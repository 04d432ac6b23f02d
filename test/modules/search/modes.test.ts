import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { ids, type Json, post, search, uploadProcessed, waitWordVectors } from './helpers.ts';

/** Small business documents: paraphrases of one share few words with it. */
const DOCUMENTS = {
  coffee:
    'Commodity desk weekly: the arabica futures market closed higher after frost warnings in Minas Gerais; robusta held steady.',
  lease:
    'Lease agreement: the landlord lets the second floor offices at 14 Quay Street to the tenant for five years at a monthly rent of 4,200 pounds.',
  nda: 'Mutual non-disclosure agreement between Ferro Robotics and Hanami Automation before the joint development of warehouse robots; confidential information stays secret for three years.',
  payroll:
    'Payroll summary for March: salaries, overtime and pension contributions of the warehouse staff, paid on the last working day.',
  minutes:
    'Minutes of the board meeting: the directors approved the annual budget and the opening of a sales office in Lisbon.',
  recipe: 'Recipe: bake the sourdough loaf at 230 degrees for forty minutes with steam, then cool it on a rack.',
} as const;

describeEachDialect(
  'search: every mode keeps its promise',
  (ctx) => {
    let tenant: TestTenant;
    const doc = {} as Record<keyof typeof DOCUMENTS, string>;
    const hybrid = async (query: string) => {
      const res = await post(ctx(), tenant.headers, '/search/hybrid', { query, limit: 10 });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    it('an exact match is found first by text, semantic, auto and hybrid alike', async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      for (const [key, text] of Object.entries(DOCUMENTS))
        doc[key as keyof typeof DOCUMENTS] = await uploadProcessed(ctx(), tenant.headers, `${key}.txt`, text);
      await waitWordVectors(ctx());
      for (const q of ['arabica futures', 'Minas Gerais frost', 'sourdough', 'pension contributions']) {
        const expected = q === 'sourdough' ? doc.recipe : q === 'pension contributions' ? doc.payroll : doc.coffee;
        for (const mode of ['text', 'semantic', 'auto'])
          assert.equal(ids(await search(ctx(), tenant.headers, { q, mode }))[0], expected, `${mode}: ${q}`);
        assert.equal(ids(await hybrid(q))[0], expected, `hybrid: ${q}`);
      }
    });

    it('auto runs semantic from 10 characters and still answers the exact match (not total 0)', async () => {
      const answer = await search(ctx(), tenant.headers, { q: 'arabica futures' });
      assert.equal(answer.mode, 'semantic');
      assert.ok(answer.total >= 1);
      assert.equal(answer.results[0].document.id, doc.coffee);
    });

    it('a lone exact match of every query word reads at least medium, in every mode', async () => {
      const text = await search(ctx(), tenant.headers, { q: 'arabica futures', mode: 'text' });
      assert.equal(text.total, 1);
      for (const answer of [
        text,
        await search(ctx(), tenant.headers, { q: 'arabica futures', mode: 'semantic' }),
        await hybrid('arabica futures'),
      ]) {
        assert.ok(['high', 'medium'].includes(answer.results[0].relevance), JSON.stringify(answer.results[0]));
      }
      // A document holding one of two rare words reads lower than one holding both.
      const partial = await search(ctx(), tenant.headers, { q: 'arabica sourdough', mode: 'text' });
      assert.ok(partial.results.every((r: Json) => r.score < text.results[0].score));
    });

    it('paraphrases find their document in the top 3 through word vectors (semantic, auto, hybrid)', async () => {
      const cases: [string, keyof typeof DOCUMENTS][] = [
        ['agreement to rent office space', 'lease'],
        ['secrecy pact before building machines together', 'nda'],
        ['wages paid to employees', 'payroll'],
        ['directors decided on spending plans', 'minutes'],
      ];
      for (const [q, key] of cases) {
        assert.ok(
          ids(await search(ctx(), tenant.headers, { q, mode: 'semantic' }))
            .slice(0, 3)
            .includes(doc[key]),
          `semantic: ${q}`,
        );
        assert.ok(
          ids(await search(ctx(), tenant.headers, { q }))
            .slice(0, 3)
            .includes(doc[key]),
          `auto: ${q}`,
        );
        assert.ok(
          ids(await hybrid(q))
            .slice(0, 3)
            .includes(doc[key]),
          `hybrid: ${q}`,
        );
      }
      // Keyword search stays literal: no word of the query is in the lease.
      assert.ok(!ids(await search(ctx(), tenant.headers, { q: 'premises to hire', mode: 'text' })).includes(doc.lease));
    });

    it('a query with no word near any document finds nothing in semantic mode either', async () => {
      const answer = await search(ctx(), tenant.headers, { q: 'xylophone quasar zeppelin', mode: 'semantic' });
      assert.equal(answer.total, 0);
    });
  },
  { worker: true },
);
