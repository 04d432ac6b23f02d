import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CredentialCache } from '../../../../src/modules/identity/auth/credential-cache.ts';

/** The cache's own rules (bounds, tags, races, liveness), with a hand-moved clock. */
describe('credential cache', () => {
  const make = (options: { maxEntries?: number; ttlMs?: number } = {}) => {
    const state = { now: 0, live: true };
    const cache = new CredentialCache<string>({
      maxEntries: options.maxEntries ?? 3,
      ttlMs: options.ttlMs ?? 1_000,
      now: () => state.now,
      isLive: () => state.live,
    });
    return { cache, state };
  };

  it('keeps an entry for its TTL only', () => {
    const { cache, state } = make();
    cache.set('a', 'A', ['t:1'], cache.stamp());
    state.now = 999;
    assert.equal(cache.get('a'), 'A');
    state.now = 1_000;
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.stats().entries, 0);
  });

  it('holds at most maxEntries, dropping the oldest first', () => {
    const { cache } = make({ maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, k.toUpperCase(), [`t:${k}`], cache.stamp());
    assert.equal(cache.stats().entries, 3);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('d'), 'D');
  });

  it('drops every entry holding an invalidated tag, and only those', () => {
    const { cache } = make({ maxEntries: 10 });
    cache.set('key1', 'k1', ['k:1', 't:acme'], cache.stamp());
    cache.set('sess1', 's1', ['s:1', 'u:1', 't:acme'], cache.stamp());
    cache.set('sess2', 's2', ['s:2', 'u:2', 't:other'], cache.stamp());
    cache.invalidate(['u:1']);
    assert.equal(cache.get('sess1'), undefined);
    assert.equal(cache.get('key1'), 'k1');
    cache.invalidate(['t:acme']);
    assert.equal(cache.get('key1'), undefined);
    assert.equal(cache.get('sess2'), 's2');
  });

  it('does not store a lookup that began before an invalidation (it may have read the old row)', () => {
    const { cache } = make();
    const stamp = cache.stamp();
    cache.invalidate(['k:1']); // committed and announced while the lookup was reading
    cache.set('key1', 'stale', ['k:1'], stamp);
    assert.equal(cache.get('key1'), undefined);
    cache.set('key1', 'fresh', ['k:1'], cache.stamp());
    assert.equal(cache.get('key1'), 'fresh');
  });

  it('neither answers nor stores while the change feed is down', () => {
    const { cache, state } = make();
    cache.set('a', 'A', ['t:1'], cache.stamp());
    state.live = false;
    assert.equal(cache.get('a'), undefined);
    cache.set('b', 'B', ['t:1'], cache.stamp());
    state.live = true;
    assert.equal(cache.get('b'), undefined);
  });

  it('counts hits and misses', () => {
    const { cache } = make();
    cache.get('a');
    cache.set('a', 'A', [], cache.stamp());
    cache.get('a');
    cache.get('a');
    assert.deepEqual(cache.stats(), { entries: 1, hits: 2, misses: 1, live: true });
  });
});
