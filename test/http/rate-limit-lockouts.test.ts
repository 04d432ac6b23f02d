import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type LockoutRule,
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from '../../src/http/rate-limit-store.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';

const rule: LockoutRule = { limit: 3, windowMs: 60_000, lockMs: 10_000, maxLockMs: 25_000, memoryMs: 120_000 };

/** The same sequence on both stores: the Lua script and the in-memory map must agree. */
function lockoutBehaviour(
  name: string,
  make: () => { store: RateLimitStore; key: string; advance?: (ms: number) => void },
  skip: string | false = false,
) {
  describe(`failure counters and locks: ${name}`, { skip }, () => {
    it('locks at the limit, doubles each further lock up to the maximum, and forgets on reset', async () => {
      const { store, key } = make();
      try {
        assert.equal(await store.lockRemaining(key), 0);
        assert.equal(await store.recordFailure(key, rule), 0);
        assert.equal(await store.recordFailure(key, rule), 0);
        assert.equal(await store.recordFailure(key, rule), 10_000);
        const left = await store.lockRemaining(key);
        assert.ok(left > 9_000 && left <= 10_000, `left ${left}`);
        // Failures start afresh after a lock; the next lock is twice as long, then capped.
        for (let i = 0; i < 2; i++) assert.equal(await store.recordFailure(key, rule), 0);
        assert.equal(await store.recordFailure(key, rule), 20_000);
        for (let i = 0; i < 2; i++) await store.recordFailure(key, rule);
        assert.equal(await store.recordFailure(key, rule), 25_000);
        await store.reset(key);
        assert.equal(await store.lockRemaining(key), 0);
        for (let i = 0; i < 2; i++) await store.recordFailure(key, rule);
        assert.equal(await store.recordFailure(key, rule), 10_000, 'a reset forgets earlier locks too');
      } finally {
        await store.close();
      }
    });
  });
}

let now = 1_000_000;
lockoutBehaviour('in memory', () => ({ store: new MemoryRateLimitStore(() => now), key: 'k{memory}' }));

const available = await redisAvailable();
lockoutBehaviour(
  'Redis',
  () => ({ store: new RedisRateLimitStore(REDIS_URL), key: `dms-test-lockout:${process.pid}:${Date.now()}:{unit}` }),
  available ? false : 'no Redis at TEST_REDIS_URL',
);

describe('in-memory locks end with time', () => {
  it('ends a lock and a failure window when their time is up', async () => {
    const store = new MemoryRateLimitStore(() => now);
    for (let i = 0; i < 3; i++) await store.recordFailure('k', rule);
    now += 9_999;
    assert.equal(await store.lockRemaining('k'), 1);
    now += 1;
    assert.equal(await store.lockRemaining('k'), 0);
    // Two failures, then the window passes: the third starts a new count.
    await store.recordFailure('k', rule);
    await store.recordFailure('k', rule);
    now += 60_000;
    assert.equal(await store.recordFailure('k', rule), 0);
  });
});
