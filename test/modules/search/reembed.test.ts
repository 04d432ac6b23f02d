import assert from 'node:assert/strict';
import { it } from 'node:test';
import { vectorToBytes } from '../../../src/lib/vectors.ts';
import { hashEmbedding } from '../../../src/providers/ai/local/hash-embedding.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { ids, type Json, search, uploadProcessed, waitWordVectors } from './helpers.ts';

// The model id is stored with each vector: after an upgrade (here: the passages of one tenant
// rewritten as the previous local model, hashed features alone, made them) the vectors are made
// again in the background, and search answers all the while.
describeEachDialect(
  'search: re-embedding after a change of embedding model',
  (ctx) => {
    it('re-embeds passages of another model in the background, with progress, while search keeps finding the documents', async () => {
      const tenant = await createTenant(ctx());
      const lease = await uploadProcessed(
        ctx(),
        tenant.headers,
        'lease.txt',
        'Lease agreement: the landlord lets the offices at 14 Quay Street to the tenant at a monthly rent of 4,200 pounds.',
      );
      const recipe = await uploadProcessed(
        ctx(),
        tenant.headers,
        'recipe.txt',
        'Recipe: bake the sourdough loaf at 230 degrees for forty minutes with steam.',
      );
      await waitWordVectors(ctx());
      const db = ctx().container.database.db;
      const health = async () => ((await ctx().app.inject({ url: '/health' })).json() as Json).capabilities;
      const current = (await health()).embedding_model as string;
      assert.match(current, /^local-hash-glove-v2/);

      const old = 'local-hash-v1:384';
      const chunks = await db
        .selectFrom('document_chunks')
        .select(['document_id', 'chunk_index', 'text'])
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      for (const c of chunks) {
        await db
          .updateTable('document_chunks')
          .set({ embedding: vectorToBytes(hashEmbedding(c.text)), embedding_model: old })
          .where('document_id', '=', c.document_id)
          .where('chunk_index', '=', c.chunk_index)
          .execute();
      }
      // Old vectors are never compared with the new model's query vectors, yet the documents are still found.
      assert.deepEqual(
        ids(await search(ctx(), tenant.headers, { q: 'agreement to rent office space', mode: 'semantic' }))[0],
        lease,
      );
      assert.deepEqual(ids(await search(ctx(), tenant.headers, { q: 'sourdough', mode: 'semantic' })), [recipe]);

      await ctx().container.jobs.enqueue(db, 'processing.reembed', { model: current, turn: 0 });
      await waitFor(
        async () => {
          const rows = await db
            .selectFrom('document_chunks')
            .select('embedding_model')
            .where('tenant_id', '=', tenant.tenantId)
            .execute();
          return rows.length > 0 && rows.every((r) => r.embedding_model === current);
        },
        'passages re-embedded',
        30_000,
      );
      // The batch counts what is left once its transaction has committed.
      const progress = await waitFor(async () => {
        const p = (await health()).reembedding;
        return p.remaining_documents === 0 ? p : undefined;
      }, 'progress counted');
      assert.ok(progress.done >= 2, JSON.stringify(progress));
      const after = await db
        .selectFrom('document_chunks')
        .select(['text', 'embedding'])
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      assert.ok(after.every((r) => r.embedding !== null && r.embedding.byteLength === 484 * 4));
      assert.deepEqual(
        after.map((r) => r.text).sort(),
        chunks.map((c) => c.text).sort(),
        'the same passages, new vectors',
      );
      const semantic = await search(ctx(), tenant.headers, { q: 'agreement to rent office space', mode: 'semantic' });
      assert.equal(ids(semantic)[0], lease);
    });
  },
  { worker: true },
);
