import type { Redis } from 'ioredis';

/** Counters of fixed windows: one call increments several counters and returns their new values. */
export interface RateLimitStore {
  /** Increments every key (each expiring after `ttlMs`) and answers the counts, in order. */
  hit(keys: string[], ttlMs: number): Promise<number[]>;
  close(): Promise<void>;
}

/** In-process counters: the embedded default, exact for one API process. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private nextSweep = 0;
  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  async hit(keys: string[], ttlMs: number): Promise<number[]> {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now, ttlMs);
    return keys.map((key) => {
      let entry = this.counters.get(key);
      if (!entry || entry.expiresAt <= now) {
        entry = { count: 0, expiresAt: now + ttlMs };
        this.counters.set(key, entry);
      }
      entry.count += 1;
      return entry.count;
    });
  }

  /** Drops finished windows, at most once per window length. */
  private sweep(now: number, ttlMs: number): void {
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
    this.nextSweep = now + Math.max(ttlMs, 1_000);
  }

  async close(): Promise<void> {
    this.counters.clear();
  }
}

// INCR every key; a key seen for the first time in its window gets its expiry. One round trip.
const HIT_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = n
end
return counts
`;

type RedisWithHit = Redis & { rateLimitHit(numKeys: number, ...args: (string | number)[]): Promise<number[]> };

/** Counters shared by every API process through Redis (`REDIS_URL`), one script call per request. */
export class RedisRateLimitStore implements RateLimitStore {
  // ioredis loads with the first counted request: processes without Redis never pay for it.
  private readonly redis: Promise<RedisWithHit>;
  constructor(url: string) {
    this.redis = import('ioredis').then(({ Redis: Client }) => {
      // A bounded wait: with Redis down, a request learns it within half a second, then the failure mode decides.
      const redis = new Client(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false, commandTimeout: 500 });
      redis.defineCommand('rateLimitHit', { lua: HIT_SCRIPT });
      // Connection errors surface on the calls; an 'error' listener keeps them from crashing the process.
      redis.on('error', () => {});
      return redis as RedisWithHit;
    });
  }

  async hit(keys: string[], ttlMs: number): Promise<number[]> {
    const counts = await (await this.redis).rateLimitHit(keys.length, ...keys, ttlMs);
    return counts.map(Number);
  }

  async close(): Promise<void> {
    const redis = await this.redis;
    await redis.quit().catch(() => redis.disconnect());
  }
}
