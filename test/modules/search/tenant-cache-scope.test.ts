import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchRepository } from '../../../src/modules/search/search.repository.ts';
import { type TenantIndex, TenantCache, type TenantSource } from '../../../src/modules/search/tenant-cache.ts';

/** A repository whose change version is `state.version`, counting the reads per tenant. */
function repository(state: { version: number }) {
  const reads: string[] = [];
  const repo = {
    version: async (_db: unknown, tenantId: string) => {
      reads.push(tenantId);
      return state.version;
    },
    changedSince: async () => ['d1'],
  } as unknown as SearchRepository;
  return { repo, reads };
}

/** An index that records the versions it was refreshed to. */
function source(key: string): TenantSource<TenantIndex & { applied: number }> {
  return {
    key,
    create: () => ({ version: 0, bytes: 1, applied: 0 }),
    all: async () => ['d1'],
    apply: async (_db, _tenantId, index) => {
      index.applied++;
    },
  };
}

const db = {} as never;

describe('search: one change-version read per request', () => {
  it('inside a scope the indexes share one read per tenant; a new scope reads again and sees a change', async () => {
    const state = { version: 1 };
    const { repo, reads } = repository(state);
    const cache = new TenantCache(repo);
    const lexical = source('lexical');
    const vectors = source('vectors');

    await cache.scoped(async () => {
      await Promise.all([cache.get(db, 't1', lexical), cache.get(db, 't1', vectors)]);
      await cache.get(db, 't1', lexical);
      await cache.get(db, 't2', lexical);
    });
    assert.deepEqual(reads, ['t1', 't2']);

    // A change committed before the next request is seen by it.
    state.version = 2;
    const index = await cache.scoped(async () => {
      await cache.scoped(() => cache.get(db, 't1', vectors)); // nested: the same scope
      return cache.get(db, 't1', lexical);
    });
    assert.deepEqual(reads, ['t1', 't2', 't1']);
    assert.equal(index.version, 2);
    assert.equal(index.applied, 2);

    // Outside a scope every lookup reads the version, as before.
    await cache.get(db, 't1', lexical);
    await cache.get(db, 't1', lexical);
    assert.equal(reads.length, 5);
  });

  it('a failed read fails only its own request', async () => {
    let fail = true;
    const repo = {
      version: async () => {
        if (fail) throw new Error('database gone');
        return 1;
      },
      changedSince: async () => [],
    } as unknown as SearchRepository;
    const cache = new TenantCache(repo);
    await assert.rejects(
      cache.scoped(() => cache.get(db, 't1', source('lexical'))),
      /database gone/,
    );
    fail = false;
    const index = await cache.scoped(() => cache.get(db, 't1', source('lexical')));
    assert.equal(index.version, 1);
  });
});
