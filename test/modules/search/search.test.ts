import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type Expression, type SqlBool, sql } from 'kysely';
import { DocumentQueries } from '../../../src/modules/documents/document-queries.ts';
import { PostgresKeywordEngine } from '../../../src/modules/search/postgres-keyword.ts';
import { parseQuery, STOP_WORDS } from '../../../src/modules/search/query-syntax.ts';
import { SqliteKeywordEngine } from '../../../src/modules/search/sqlite-keyword.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { charges, DOCS, ids, type Json, post, search, uploadProcessed } from './helpers.ts';

describeEachDialect(
  'search: GET /search, hybrid',
  (ctx, dialect) => {
    let tenant: TestTenant;
    const doc: Record<keyof typeof DOCS, string> = { invoice: '', hiking: '', recipe: '', contract: '' };

    it('finds processed documents by keyword: stems, phrases, prefixes, diacritics, stop words', async () => {
      tenant = await createTenant(ctx());
      for (const key of Object.keys(DOCS) as (keyof typeof DOCS)[])
        doc[key] = await uploadProcessed(ctx(), tenant.headers, `${key}.txt`, DOCS[key]);
      const text = (q: string) => search(ctx(), tenant.headers, { q, mode: 'text' });

      const stemmed = await text('invoices');
      assert.equal(stemmed.mode, 'text');
      assert.equal(stemmed.query, 'invoices');
      assert.deepEqual(ids(stemmed), [doc.invoice]);
      assert.deepEqual(ids(await text('baking chocolate')), [doc.recipe]);
      assert.deepEqual(ids(await text('"quarterly audit"')), [doc.invoice]);
      assert.deepEqual(ids(await text('"audit quarterly"')), []);
      assert.deepEqual(ids(await text('consult*')), [doc.invoice]);
      // `keyword` is accepted as the same mode, and the answer says which mode ran.
      const keyword = await search(ctx(), tenant.headers, { q: 'invoices', mode: 'keyword' });
      assert.deepEqual([keyword.mode, ids(keyword)], ['text', [doc.invoice]]);
      const otherTenant = await createTenant(ctx());
      assert.deepEqual(
        ids(await search(ctx(), otherTenant.headers, { q: 'invoices', mode: 'keyword' })),
        [],
        'another tenant finds none of these',
      );
      assert.deepEqual(ids(await text('zurich')), [doc.invoice], 'Zürich is found without its umlaut');
      assert.deepEqual(ids(await text('CAFÉ')), [doc.hiking]);
      assert.deepEqual(ids(await text('the employment')), [doc.contract], 'stop words do not have to match');

      const hit = stemmed.results[0];
      assert.equal(hit.document.filename, 'invoice.txt');
      assert.ok('ai_summary' in hit.document && 'folder_id' in hit.document);
      assert.match(hit.document.created_at, /^\d{4}-\d{2}-\d{2}T/);
      assert.ok(hit.score > 0 && hit.score <= 1);
      assert.ok(['high', 'medium', 'low', 'very_low'].includes(hit.relevance));
      assert.match(hit.highlight, /<mark>Invoice/);
      assert.equal(stemmed.total, 1);
    });

    it('never lets query syntax reach the engine: any text is a valid query', async () => {
      for (const q of [
        '"unbalanced',
        'AND OR NOT',
        'NEAR(a b)',
        'body:secret',
        '*',
        'a*',
        '((',
        "it's",
        '-',
        '^invoice',
        "'; drop table documents; --",
        '\\"',
      ]) {
        const answer = await search(ctx(), tenant.headers, { q, mode: 'text' });
        assert.ok(Array.isArray(answer.results), q);
      }
      assert.deepEqual(ids(await search(ctx(), tenant.headers, { q: '^invoice!!', mode: 'text' })), [doc.invoice]);
    });

    it('rejects a blank query with INVALID_QUERY and bad parameters with validation_error', async () => {
      for (const q of ['', '   '])
        assertError(
          await ctx().app.inject({
            method: 'GET',
            url: `/api/v1/search?q=${encodeURIComponent(q)}`,
            headers: tenant.headers,
          }),
          400,
          'invalid_query',
        );
      assertError(
        await ctx().app.inject({ method: 'GET', url: '/api/v1/search', headers: tenant.headers }),
        400,
        'invalid_query',
      );
      for (const bad of [
        'limit=0',
        'limit=101',
        'min_score=1.5',
        'mode=fuzzy',
        'date_start=yesterday',
        'date_end=2026-13-45',
      ]) {
        assertError(
          await ctx().app.inject({ method: 'GET', url: `/api/v1/search?q=invoice&${bad}`, headers: tenant.headers }),
          400,
          'validation_error',
        );
      }
      assertError(await post(ctx(), tenant.headers, '/search/hybrid', { query: ' ' }), 400, 'invalid_query');
      assertError(
        await post(ctx(), tenant.headers, '/search/hybrid', { query: 'x', semantic_weight: 0, text_weight: 0 }),
        400,
        'validation_error',
      );
      assertError(
        await post(ctx(), tenant.headers, '/search/hybrid', { query: 'x', semantic_weight: -1 }),
        400,
        'validation_error',
      );
      assertError(
        await post(ctx(), tenant.headers, '/search/hybrid', { query: 'x', semantic_weight: 0.8, text_weight: 0.8 }),
        400,
        'validation_error',
      );
    });

    it('answers 200 with no results and total 0 when nothing matches', async () => {
      for (const mode of ['text', 'semantic']) {
        const answer = await search(ctx(), tenant.headers, { q: 'xylophone quasar zeppelin', mode });
        assert.deepEqual(answer.results, []);
        assert.equal(answer.total, 0);
        assert.equal(answer.mode, mode);
      }
    });

    it('auto mode: keyword under 10 characters, semantic from 10; only semantic is charged (0.5)', async () => {
      const before = await charges(ctx(), tenant.tenantId, 'semantic_search');
      const short = await search(ctx(), tenant.headers, { q: 'chocolate' });
      assert.equal(short.mode, 'text');
      assert.deepEqual(ids(short), [doc.recipe]);
      assert.equal(await charges(ctx(), tenant.tenantId, 'semantic_search'), before);

      const long = await search(ctx(), tenant.headers, { q: 'how to bake a chocolate cake' });
      assert.equal(long.mode, 'semantic');
      assert.equal(ids(long)[0], doc.recipe);
      assert.ok(long.results[0].score > 0 && long.results[0].score <= 1);
      assert.match(long.results[0].highlight, /<mark>/);
      assert.equal(await charges(ctx(), tenant.tenantId, 'semantic_search'), before + 1);
      const row = await ctx()
        .container.database.db.selectFrom('ai_credit_charges')
        .select('millicredits')
        .where('tenant_id', '=', tenant.tenantId)
        .where('reason', '=', 'semantic_search')
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.millicredits), 500);
    });

    it('semantic search finds by shared meaning-bearing words and ranks the best passage first', async () => {
      const answer = await search(ctx(), tenant.headers, {
        q: 'hikers climbing mountains in the alps',
        mode: 'semantic',
      });
      assert.equal(ids(answer)[0], doc.hiking);
      const scores = answer.results.map((r: Json) => r.score);
      assert.deepEqual(
        [...scores].sort((a, b) => b - a),
        scores,
      );
    });

    it('applies limit, min_score and filters (folder, tag, file type, dates)', async () => {
      const folder = await post(ctx(), tenant.headers, '/folders', { name: `Finance ${dialect}` });
      assert.equal(folder.statusCode, 201, folder.body);
      const folderId = folder.json().id;
      const inFolder = await uploadProcessed(ctx(), tenant.headers, 'invoice-copy.md', `${DOCS.invoice} Second copy.`, {
        folder_id: folderId,
        tags: ['finance'],
      });
      const tag = (await ctx().app.inject({ method: 'GET', url: '/api/v1/tags', headers: tenant.headers }))
        .json()
        .data.find((t: Json) => t.name === 'finance');

      const all = await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text' });
      assert.deepEqual(new Set(ids(all)), new Set([doc.invoice, inFolder]));
      assert.equal((await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', limit: 1 })).results.length, 1);
      assert.deepEqual(ids(await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', folder_id: folderId })), [
        inFolder,
      ]);
      assert.deepEqual(
        ids(await search(ctx(), tenant.headers, { q: 'invoice', mode: 'semantic', folder_id: folderId })),
        [inFolder],
      );
      assert.deepEqual(ids(await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', tag_id: tag.id })), [
        inFolder,
      ]);
      assert.deepEqual(ids(await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', file_type: 'md' })), [
        inFolder,
      ]);
      assert.deepEqual(
        ids(await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', file_type: 'text/plain' })),
        [doc.invoice],
      );
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(
        (await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', date_start: today, date_end: today }))
          .results.length,
        2,
      );
      assert.equal(
        (await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', date_end: '2020-01-01' })).results.length,
        0,
      );
      assert.equal(
        (await search(ctx(), tenant.headers, { q: 'invoice', mode: 'semantic', date_start: '2999-01-01T00:00:00Z' }))
          .results.length,
        0,
      );
      const strict = await search(ctx(), tenant.headers, { q: 'invoice', mode: 'text', min_score: 0.999 });
      assert.deepEqual(strict.results, []);
    });

    it('hybrid: the weighted sum of both scores over the union, with the arms that matched', async () => {
      const query = 'chocolate cake baking';
      const text = await search(ctx(), tenant.headers, { q: query, mode: 'text' });
      const semantic = await search(ctx(), tenant.headers, { q: query, mode: 'semantic' });
      const before = await charges(ctx(), tenant.tenantId, 'hybrid_search');
      const res = await post(ctx(), tenant.headers, '/search/hybrid', {
        query,
        semantic_weight: 0.7,
        text_weight: 0.3,
        limit: 10,
        filters: {},
      });
      assert.equal(res.statusCode, 200, res.body);
      const hybrid = res.json();
      assert.equal(hybrid.mode, 'hybrid');
      assert.equal(hybrid.query, query);
      assert.equal(ids(hybrid)[0], doc.recipe);
      const top = hybrid.results[0];
      assert.deepEqual(top.matched, ['text', 'semantic']);
      const t = text.results.find((r: Json) => r.document.id === doc.recipe).score;
      const s = semantic.results.find((r: Json) => r.document.id === doc.recipe).score;
      assert.ok(Math.abs(top.score - (0.7 * s + 0.3 * t)) < 1e-5, `${top.score} vs ${0.7 * s + 0.3 * t}`);
      for (const r of hybrid.results) {
        assert.ok(r.matched.length >= 1 && r.matched.every((m: string) => m === 'text' || m === 'semantic'));
        assert.ok(r.score >= 0 && r.score <= 1);
      }
      assert.equal(await charges(ctx(), tenant.tenantId, 'hybrid_search'), before + 1);

      // A text-only query word: found by keyword alone when semantics do not reach it.
      const only = (await post(ctx(), tenant.headers, '/search/hybrid', { query: '12,500', text_weight: 1 })).json();
      assert.equal(ids(only)[0], doc.invoice);
      assert.ok(only.results[0].matched.includes('text'));
      const folderOnly = (
        await post(ctx(), tenant.headers, '/search/hybrid', { query: 'invoice', filters: { folder_id: 'fld_missing' } })
      ).json();
      assert.deepEqual(folderOnly.results, []);
    });

    it("ranks a query of stop words only in the database, and given documents (hybrid scoring the other arm's finds) exactly as the full ranking does", async () => {
      // The engine's own ranking serves only queries of stop words (the in-memory index ranks the rest):
      // `would` and `could` are stop words of the query syntax that PostgreSQL's configuration indexes.
      const own = await createTenant(ctx());
      const twice = await uploadProcessed(
        ctx(),
        own.headers,
        'twice.txt',
        'We would go and we would stay; it could rain.',
      );
      const once = await uploadProcessed(
        ctx(),
        own.headers,
        'once.txt',
        'Nothing would change in the quarterly report.',
      );
      await uploadProcessed(ctx(), own.headers, 'none.txt', 'The quarterly invoice of the consultants.');
      const text = async (q: string) => ids(await search(ctx(), own.headers, { q, mode: 'text' }));
      assert.deepEqual((await text('would')).sort(), [twice, once].sort(), 'a query of stop words searches them');
      assert.deepEqual(await text('would could'), [twice], 'every word, as any query');
      const engine =
        dialect === 'postgres' ? new PostgresKeywordEngine(new DocumentQueries(dialect)) : new SqliteKeywordEngine();
      const db = ctx().container.database.db;
      const anyDocument = () => sql<SqlBool>`1 = 1`;
      const base = {
        tenantId: own.tenantId,
        clauses: parseQuery('would could'),
        join: 'any' as const,
        document: anyDocument,
        limit: 10,
      };
      const full = await engine.search(db, base);
      assert.deepEqual(full.map((h) => h.documentId).sort(), [twice, once].sort());
      if (dialect === 'postgres') {
        // Ranked over `stop_tsv`: the same rank as `ts_rank_cd` over the whole `tsv`.
        const { rows } = await sql<{ document_id: string; rank: number }>`
          select document_id, ts_rank_cd(tsv, to_tsquery('docuvault_search', 'would | could')) as rank
          from search_documents where tenant_id = ${own.tenantId} and tsv @@ to_tsquery('docuvault_search', 'would | could')`.execute(
          db,
        );
        assert.deepEqual(
          full.map((h) => [h.documentId, h.rank]).sort(),
          rows.map((r) => [r.document_id, r.rank]).sort(),
        );
      }
      const rankOf = new Map(full.map((h) => [h.documentId, h.rank]));
      const given = await engine.search(db, { ...base, onlyDocumentIds: [twice, once, 'doc_missing'] });
      assert.deepEqual(given.map((h) => h.documentId).sort(), [twice, once].sort());
      for (const h of given)
        assert.ok(
          Math.abs(h.rank - rankOf.get(h.documentId)!) < 1e-9,
          `${h.documentId}: ${h.rank} vs ${rankOf.get(h.documentId)}`,
        );
      const notOnce = (id: Expression<string>) => sql<SqlBool>`${id} <> ${once}`;
      const visible = await engine.search(db, { ...base, document: notOnce, onlyDocumentIds: [twice, once] });
      assert.deepEqual(
        visible.map((h) => h.documentId),
        [twice],
        'visibility and filters apply to given documents too',
      );
    });

    it('keeps every lexeme a query of stop words can hold in stop_tsv (PostgreSQL)', async () => {
      if (dialect !== 'postgres') return;
      const db = ctx().container.database.db;
      for (const word of STOP_WORDS) {
        const { rows } = await sql<{ same: boolean }>`
          select search_stop_tsvector(to_tsvector('docuvault_search', ${word})) = to_tsvector('docuvault_search', ${word}) as same`.execute(
          db,
        );
        assert.ok(
          rows[0]!.same,
          `${word}: its lexeme is kept (migration 20261130_0400's list and the query syntax's agree)`,
        );
      }
      const { rows } = await sql<{ kept: string }>`
        select search_stop_tsvector(to_tsvector('docuvault_search', 'invoices would follow')) :: text as kept`.execute(
        db,
      );
      assert.equal(rows[0]!.kept, "'would':2", 'other lexemes are dropped, positions kept');
    });

    it("never finds another tenant's documents", async () => {
      const other = await createTenant(ctx());
      await uploadProcessed(
        ctx(),
        other.headers,
        'other.txt',
        'Invoice of another tenant about chocolate cake and the Swiss Alps.',
      );
      for (const mode of ['text', 'semantic']) {
        const answer = await search(ctx(), other.headers, { q: 'quarterly audit invoice', mode });
        assert.ok(!ids(answer).some((id) => Object.values(doc).includes(id)), mode);
      }
      const hybrid = (
        await post(ctx(), other.headers, '/search/hybrid', { query: 'employment contract salary' })
      ).json();
      assert.ok(!ids(hybrid).includes(doc.contract));
    });
  },
  { worker: true },
);
