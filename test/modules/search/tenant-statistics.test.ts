import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { type Json, post, search, uploadProcessed, waitWordVectors } from './helpers.ts';

// Issue 34 item 4: keyword statistics (document count, lengths, document frequencies) are each
// tenant's own, so another tenant's uploads move no score or rank of this one: a side channel
// on other tenants' words otherwise.
describeEachDialect(
  'search: per-tenant statistics',
  (ctx) => {
    it("tenant A's scores and ranks are exactly the same before and after tenant B uploads documents full of A's words", async () => {
      const a = await createTenant(ctx());
      const b = await createTenant(ctx());
      await uploadProcessed(
        ctx(),
        a.headers,
        'coffee.txt',
        'Arabica futures market report: coffee prices rose as the harvest in Brazil fell short.',
      );
      await uploadProcessed(
        ctx(),
        a.headers,
        'tea.txt',
        'Tea auction notes: prices for Darjeeling rose; the coffee desk expects a quiet week.',
      );
      await uploadProcessed(
        ctx(),
        a.headers,
        'lease.txt',
        'Office lease agreement for the second floor, rent due on the first day of each month.',
      );
      const queries: [string, Record<string, string | number>][] = [
        ['text', { q: 'coffee prices', mode: 'text' }],
        ['text-any', { q: 'coffee lease', mode: 'text' }],
        ['semantic', { q: 'coffee prices rose', mode: 'semantic' }],
        ['semantic-soft', { q: 'agreement to rent office space', mode: 'semantic' }],
      ];
      const snapshot = async () => {
        const out: Record<string, [string, number][]> = {};
        for (const [name, params] of queries)
          out[name] = (await search(ctx(), a.headers, params)).results.map((r: Json) => [r.document.filename, r.score]);
        const hybrid = await post(ctx(), a.headers, '/search/hybrid', { query: 'coffee prices', limit: 10 });
        out['hybrid'] = hybrid.json().results.map((r: Json) => [r.document.filename, r.score]);
        return out;
      };
      await waitWordVectors(ctx());
      const before = await snapshot();
      assert.ok(
        before['text']!.length === 2 && before['semantic-soft']![0]![0] === 'lease.txt',
        JSON.stringify(before),
      );

      // B's documents hold A's words many times over, and more documents than A has.
      for (let i = 0; i < 6; i++) {
        await uploadProcessed(
          ctx(),
          b.headers,
          `b${i}.txt`,
          `Coffee coffee prices prices futures ${'market '.repeat(i + 1)}report ${i}: rent lease office agreement.`,
        );
      }
      assert.deepEqual(await snapshot(), before);
    });
  },
  { worker: true },
);
