import assert from 'node:assert/strict';
import { it } from 'node:test';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { documentRow } from '../../support/document-rows.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import { charges, DOCS, ids, post, search, uploadProcessed, waitProcessed } from './helpers.ts';

const CAKE =
  'Chocolate cake recipe: melt dark chocolate with butter, whisk eggs with sugar, bake the chocolate cake for forty minutes.';

describeEachDialect(
  'search: visibility, deletion, reprocessing, credits',
  (ctx) => {
    it('a member finds only what they may see, in every mode, filtered before the top-k', async () => {
      const tenant = await createTenant(ctx());
      const member = await loginAs(ctx(), tenant, 'member');
      // The owner's documents are the best matches for the query; the member's own and the shared one are weaker.
      const hidden: string[] = [];
      for (let i = 0; i < 4; i++)
        hidden.push(await uploadProcessed(ctx(), tenant.headers, `cake-${i}.txt`, `${CAKE} Variation ${i}.`));
      const own = await uploadProcessed(
        ctx(),
        member.headers,
        'mine.txt',
        'My notes: a chocolate cake for the team party, plus a list of drinks and napkins to buy.',
      );
      const shared = await uploadProcessed(
        ctx(),
        tenant.headers,
        'shared.txt',
        'Shared memo: the bakery delivers the chocolate cake on Friday; the invoice follows by mail.',
      );
      const share = await post(ctx(), tenant.headers, `/documents/${shared}/share`, {
        user_id: member.userId,
        permission: 'view',
      });
      assert.ok(share.statusCode === 201 || share.statusCode === 200, share.body);

      const asAdmin = await search(ctx(), tenant.headers, {
        q: 'chocolate cake recipe bake',
        mode: 'semantic',
        limit: 2,
      });
      assert.ok(
        ids(asAdmin).every((id) => hidden.includes(id)),
        'the hidden documents are the best matches',
      );

      for (const mode of ['text', 'semantic']) {
        const answer = await search(ctx(), member.headers, { q: 'chocolate cake recipe bake', mode, limit: 2 });
        assert.ok(answer.results.length >= 1, `${mode}: something visible is found`);
        assert.ok(
          ids(answer).every((id) => id === own || id === shared),
          `${mode}: ${ids(answer)}`,
        );
        const one = await search(ctx(), member.headers, { q: 'chocolate cake', mode, limit: 1 });
        assert.equal(one.results.length, 1, `${mode}: limit 1 still finds a visible document`);
      }
      const hybrid = (
        await post(ctx(), member.headers, '/search/hybrid', { query: 'chocolate cake recipe bake', limit: 3 })
      ).json();
      assert.ok(hybrid.results.length >= 1);
      assert.ok(
        ids(hybrid).every((id) => id === own || id === shared),
        ids(hybrid).join(),
      );

      // Revoking the share hides the document at once.
      const shares = (
        await ctx().app.inject({ method: 'GET', url: `/api/v1/documents/${shared}/shares`, headers: tenant.headers })
      ).json();
      const shareId = shares.shares[0].share_id ?? shares.shares[0].id;
      const revoked = await ctx().app.inject({
        method: 'DELETE',
        url: `/api/v1/documents/${shared}/shares/${shareId}`,
        headers: tenant.headers,
      });
      assert.ok(revoked.statusCode < 300, revoked.body);
      for (const mode of ['text', 'semantic']) {
        assert.ok(
          !ids(await search(ctx(), member.headers, { q: 'bakery delivers chocolate cake friday', mode })).includes(
            shared,
          ),
          mode,
        );
      }
    });

    it('a member finds their weak keyword match below more stronger hidden ones than a first pass ranks', async () => {
      const tenant = await createTenant(ctx());
      const member = await loginAs(ctx(), tenant, 'member');
      const db = ctx().container.database.db;
      const strong = 'Quarterly audit findings. The audit covers the audit trail, audit scope and audit evidence.';
      const rows = Array.from({ length: 130 }, (_, i) => ({
        id: `${tenant.tenantId.slice(0, 8)}-hidden-${i}`,
        owner: null as string | null,
        text: `${strong} Copy ${i}.`,
      }));
      rows.push({
        id: `${tenant.tenantId.slice(0, 8)}-mine`,
        owner: member.userId,
        text: 'Meeting notes with one mention of the audit among many other topics: budget, hiring, travel, offices.',
      });
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('documents')
          .values(rows.map((r) => documentRow(tenant.tenantId, r.id, { owner_id: r.owner })))
          .execute();
        await trx
          .insertInto('document_contents')
          .values(
            rows.map((r) => ({
              document_id: r.id,
              tenant_id: tenant.tenantId,
              content: r.text,
              pages: null,
              page_texts: null,
              created_at: Date.now(),
            })),
          )
          .execute();
      });
      const asAdmin = await search(ctx(), tenant.headers, { q: 'audit', mode: 'text', limit: 100 });
      assert.equal(asAdmin.results.length, 100);
      assert.ok(!ids(asAdmin).includes(rows.at(-1)!.id), 'the member’s document ranks below the first hundred');
      const mine = await search(ctx(), member.headers, { q: 'audit', mode: 'text', limit: 5 });
      assert.deepEqual(ids(mine), [rows.at(-1)!.id]);
    });

    it('a deleted document disappears from every mode at once; a reprocessed one stays found', async () => {
      const tenant = await createTenant(ctx());
      const gone = await uploadProcessed(ctx(), tenant.headers, 'contract.txt', DOCS.contract);
      const kept = await uploadProcessed(ctx(), tenant.headers, 'hiking.txt', DOCS.hiking);
      const query = 'employment contract confidentiality salary';
      assert.ok(ids(await search(ctx(), tenant.headers, { q: query, mode: 'semantic' })).includes(gone));
      const del = await ctx().app.inject({
        method: 'DELETE',
        url: `/api/v1/documents/${gone}`,
        headers: tenant.headers,
      });
      assert.ok(del.statusCode < 300, del.body);
      assert.ok(!ids(await search(ctx(), tenant.headers, { q: query, mode: 'text' })).includes(gone));
      assert.ok(!ids(await search(ctx(), tenant.headers, { q: query, mode: 'semantic' })).includes(gone));
      assert.ok(!ids((await post(ctx(), tenant.headers, '/search/hybrid', { query })).json()).includes(gone));

      const re = await post(ctx(), tenant.headers, `/documents/${kept}/reprocess`, {});
      assert.equal(re.statusCode, 202, re.body);
      // While it is reprocessed, and after, the document is found.
      assert.deepEqual(ids(await search(ctx(), tenant.headers, { q: 'fondue summit', mode: 'text' })), [kept]);
      await waitProcessed(ctx(), kept);
      await waitFor(
        async () => (await search(ctx(), tenant.headers, { q: 'fondue summit', mode: 'text' })).results.length === 1,
        'found after reprocessing',
      );
      assert.deepEqual(
        ids(await search(ctx(), tenant.headers, { q: 'hiking trail in the swiss alps', mode: 'semantic' })),
        [kept],
      );
    });

    it('credits: semantic and hybrid need 0.5, keyword is free, a refused or failed search is not charged', async () => {
      const tenant = await createTenant(ctx(), { tier: 'free' });
      await uploadProcessed(ctx(), tenant.headers, 'recipe.txt', DOCS.recipe);
      const period = new Date().toISOString().slice(0, 7);
      // 99.8 of the Free tier's 100 monthly credits are spent.
      await ctx()
        .container.database.db.insertInto('ai_credit_charges')
        .values({
          id: `crd_test_${tenant.tenantId}`,
          tenant_id: tenant.tenantId,
          period,
          millicredits: 99_800,
          reason: 'chat_ask',
          reference: null,
          created_at: Date.now(),
        })
        .execute();
      const before = await charges(ctx(), tenant.tenantId);

      const refused = await ctx().app.inject({
        method: 'GET',
        url: '/api/v1/search?q=chocolate%20cake%20recipe&mode=semantic',
        headers: tenant.headers,
      });
      const body = assertError(refused, 402, 'insufficient_credits');
      assert.equal(body.details.needed, 0.5);
      assert.ok(Math.abs(body.details.remaining - 0.2) < 1e-9);
      assertError(
        await post(ctx(), tenant.headers, '/search/hybrid', { query: 'chocolate cake' }),
        402,
        'insufficient_credits',
      );
      assertError(
        await ctx().app.inject({
          method: 'GET',
          url: '/api/v1/search?q=how%20do%20I%20bake%20a%20cake',
          headers: tenant.headers,
        }),
        402,
        'insufficient_credits',
      );

      const keyword = await search(ctx(), tenant.headers, { q: 'chocolate', mode: 'text' });
      assert.equal(keyword.results.length, 1);
      assert.equal((await search(ctx(), tenant.headers, { q: 'cake' })).mode, 'text');
      // A failing request (bad filter) costs nothing either.
      assertError(
        await ctx().app.inject({
          method: 'GET',
          url: '/api/v1/search?q=chocolate%20cake%20recipe&mode=semantic&date_start=nope',
          headers: tenant.headers,
        }),
        400,
        'validation_error',
      );
      assert.equal(await charges(ctx(), tenant.tenantId), before);
    });

    it('enhanced search: Pro and above; dates, file types and tag names in the query become filters', async () => {
      const starter = await createTenant(ctx(), { tier: 'starter' });
      const gated = assertError(
        await post(ctx(), starter.headers, '/search/enhanced', { query: 'invoice' }),
        403,
        'tier_limit_exceeded',
      );
      assert.equal(gated.details.required_tier, 'pro');

      const pro = await createTenant(ctx(), { tier: 'pro' });
      const tagged = await uploadProcessed(ctx(), pro.headers, 'invoice.txt', DOCS.invoice, { tags: ['finance'] });
      const plain = await uploadProcessed(
        ctx(),
        pro.headers,
        'invoice-2.md',
        `${DOCS.invoice} A second invoice without a tag.`,
      );
      await uploadProcessed(ctx(), pro.headers, 'recipe.txt', DOCS.recipe);
      const year = new Date().getUTCFullYear();

      const before = await charges(ctx(), pro.tenantId, 'enhanced_search');
      const res = await post(ctx(), pro.headers, '/search/enhanced', { query: `finance invoices from ${year}` });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json();
      assert.equal(answer.mode, 'enhanced');
      assert.deepEqual(ids(answer), [tagged]);
      const types = answer.applied_filters.map((f: { type: string; source: string }) => `${f.type}:${f.source}`).sort();
      assert.deepEqual(types, ['date_range:query', 'tag:query']);
      const range = answer.applied_filters.find((f: { type: string }) => f.type === 'date_range');
      assert.equal(range.value.start, `${year}-01-01T00:00:00.000Z`);
      assert.equal(await charges(ctx(), pro.tenantId, 'enhanced_search'), before + 1);

      const md = (await post(ctx(), pro.headers, '/search/enhanced', { query: 'invoice markdown files' })).json();
      assert.deepEqual(ids(md), [plain]);
      assert.ok(md.applied_filters.some((f: { type: string }) => f.type === 'file_type'));

      const past = (
        await post(ctx(), pro.headers, '/search/enhanced', {
          query: 'invoice',
          filters: { date_range: { end: '2020-12-31' } },
        })
      ).json();
      assert.deepEqual(past.results, []);
      assert.deepEqual(
        past.applied_filters.map((f: { source: string }) => f.source),
        ['request'],
      );
      const byTag = (
        await post(ctx(), pro.headers, '/search/enhanced', { query: 'invoice', filters: { tags: ['FINANCE'] } })
      ).json();
      assert.deepEqual(ids(byTag), [tagged]);

      const similar = (
        await post(ctx(), pro.headers, '/search/enhanced', {
          query: 'second invoice without a tag',
          limit: 1,
          include_similar: true,
        })
      ).json();
      assert.equal(ids(similar)[0], plain);
      const extra = similar.results.filter((r: { similar_to?: string }) => r.similar_to);
      assert.ok(extra.length >= 1, 'a similar document is added');
      assert.equal(extra[0].document.id, tagged);
      assert.equal(extra[0].similar_to, plain);
      assert.ok(!ids(similar).slice(1).includes(plain));
    });
  },
  { worker: true },
);
