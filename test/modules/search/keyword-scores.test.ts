import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { ids, type Json, search, uploadProcessed } from './helpers.ts';

// A new installation: BM25's document frequency is meaningless with one document (its weight
// would be ≤ 0 on SQLite), yet a match must score above 0 and survive a small min_score.
describeEachDialect(
  'search: keyword scores in a small index',
  (ctx) => {
    it("scores the index's only document, and a word every document holds, above 0", async () => {
      const tenant = await createTenant(ctx());
      const first = await uploadProcessed(
        ctx(),
        tenant.headers,
        'q3.txt',
        'Quarterly report for the third quarter: revenue grew and costs fell.',
      );
      const only = await search(ctx(), tenant.headers, { q: 'quarterly', mode: 'text' });
      assert.deepEqual(ids(only), [first]);
      assert.ok(only.results[0].score > 0.1, `score ${only.results[0].score}`);
      assert.notEqual(only.results[0].relevance, undefined);

      const second = await uploadProcessed(
        ctx(),
        tenant.headers,
        'q4.txt',
        'Quarterly report for the fourth quarter: revenue flat, hiring paused.',
      );
      const third = await uploadProcessed(
        ctx(),
        tenant.headers,
        'memo.txt',
        'Memo: the report template changes next year; send each report by Friday.',
      );
      const everywhere = await search(ctx(), tenant.headers, { q: 'report', mode: 'text', min_score: 0.05 });
      assert.deepEqual(new Set(ids(everywhere)), new Set([first, second, third]));
      for (const hit of everywhere.results as Json[])
        assert.ok(hit.score > 0.05 && hit.score < 1, `score ${hit.score}`);
      // Scores still rank: the word twice beats once in texts of about the same length.
      assert.equal(everywhere.results[0].document.id, third);
      assert.ok(everywhere.results[0].score > everywhere.results[1].score);
    });
  },
  { worker: true },
);
