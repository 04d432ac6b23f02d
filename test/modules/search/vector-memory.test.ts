import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { vectorToBytes } from '../../../src/lib/vectors.ts';
import type { PassageStore } from '../../../src/modules/processing/index.ts';
import type { SearchRepository } from '../../../src/modules/search/search.repository.ts';
import { OverBudgetError, TenantCache } from '../../../src/modules/search/tenant-cache.ts';
import { vectorSource } from '../../../src/modules/search/tenant-sources.ts';

const DIMS = 64;

/** A passage store of `documents[tenant]` documents of 3 passages each, counting the vector reads. */
function store(documents: Record<string, number>) {
  const reads: string[] = [];
  const vector = (seed: number) => vectorToBytes(Float32Array.from({ length: DIMS }, (_, i) => Math.sin(seed + i)));
  const passages = {
    embeddedDocuments: async (_db: unknown, tenantId: string) =>
      Array.from({ length: documents[tenantId] ?? 0 }, (_, i) => `${tenantId}-d${i}`),
    vectors: async (_db: unknown, tenantId: string, _model: string, ids: string[]) => {
      reads.push(tenantId);
      return new Map(
        ids.map((id, n) => [id, [0, 1, 2].map((chunkIndex) => ({ chunkIndex, bytes: vector(n * 3 + chunkIndex) }))]),
      );
    },
  } as unknown as PassageStore;
  return { passages, reads };
}

const repository = { version: async () => 1, changedSince: async () => [] } as unknown as SearchRepository;
const db = {} as never;

describe('search memory budget (vectors)', () => {
  it("a tenant whose vectors pass the process's budget is refused with a clear message, remembered, and holds nothing; a small tenant loads", async () => {
    const { passages, reads } = store({ big: 5_000, small: 10 });
    const refused: OverBudgetError[] = [];
    const budget = 1024 * 1024;
    const cache = new TenantCache(repository, { budgetBytes: budget, onOverBudget: (e) => refused.push(e) });
    const source = vectorSource(passages, 'm:64', DIMS, budget);

    await assert.rejects(cache.get(db, 'big', source), (error: unknown) => {
      assert.ok(error instanceof OverBudgetError);
      assert.equal(error.tenantId, 'big');
      assert.match(error.message, /tenant big need more than this process's search memory \(1 MB, SEARCH_MEMORY_MB\)/);
      assert.match(error.message, /of 5,000 documents when it stopped/);
      return true;
    });
    // It stopped early: not every batch of the 5,000 documents was read.
    const readsAtRefusal = reads.length;
    assert.ok(readsAtRefusal < 3, `read ${readsAtRefusal} batches`);
    assert.equal(refused.length, 1);
    assert.deepEqual(cache.usage(), { heldBytes: 0, overBudget: 1 });

    // The next search is refused at once, without reading again, and is logged once only.
    await assert.rejects(cache.get(db, 'big', source), OverBudgetError);
    assert.equal(reads.length, readsAtRefusal);
    assert.equal(refused.length, 1);

    const small = await cache.get(db, 'small', source);
    assert.equal(small.documents, 10);
    assert.ok(cache.usage().heldBytes > 0 && cache.usage().heldBytes <= budget);
  });
});
