import type { Redis } from 'ioredis';

/**
 * How failures of one subject (an account, a client) turn into a lock: `limit` failures within
 * `windowMs` (counted from the first) lock it for `lockMs`, doubled for each further lock while
 * earlier ones are remembered (`memoryMs`), never longer than `maxLockMs`.
 */
export interface LockoutRule {
  limit: number;
  windowMs: number;
  lockMs: number;
  maxLockMs: number;
  memoryMs: number;
}

/**
 * Counters of fixed windows (one call increments several counters and returns their new values),
 * and failure counters with locks (sign-in limits). A subject's keys are `<key>:f` (failures),
 * `<key>:s` (locks so far) and `<key>:l` (the lock); give `key` a `{hash tag}` so they share a slot.
 */
export interface RateLimitStore {
  /** Increments every key (each expiring after `ttlMs`) and answers the counts, in order. */
  hit(keys: string[], ttlMs: number): Promise<number[]>;
  /** What is left of the subject's lock in ms; 0 when it is not locked. */
  lockRemaining(key: string): Promise<number>;
  /** Counts one failure of the subject; answers the length of the lock it started (ms), else 0. */
  recordFailure(key: string, rule: LockoutRule): Promise<number>;
  /** Forgets the subject's failures, earlier locks and lock. */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The lock `strikes` earlier locks (this one included) earn: doubled each time, capped. */
export function lockLength(rule: LockoutRule, strikes: number): number {
  return Math.min(rule.maxLockMs, rule.lockMs * 2 ** Math.min(Math.max(strikes - 1, 0), 30));
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
    return keys.map((key) => this.increment(key, ttlMs, now));
  }

  async lockRemaining(key: string): Promise<number> {
    const now = this.now();
    const lock = this.live(`${key}:l`, now);
    return lock ? lock.expiresAt - now : 0;
  }

  async recordFailure(key: string, rule: LockoutRule): Promise<number> {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now, rule.windowMs);
    if (this.increment(`${key}:f`, rule.windowMs, now) < rule.limit) return 0;
    const strikes = this.increment(`${key}:s`, rule.memoryMs, now);
    // Each lock restarts the memory of earlier ones, as PEXPIRE does in the Redis script.
    this.counters.get(`${key}:s`)!.expiresAt = now + rule.memoryMs;
    const lockMs = lockLength(rule, strikes);
    this.counters.set(`${key}:l`, { count: 1, expiresAt: now + lockMs });
    this.counters.delete(`${key}:f`);
    return lockMs;
  }

  async reset(key: string): Promise<void> {
    for (const suffix of [':f', ':s', ':l']) this.counters.delete(key + suffix);
  }

  /** Adds one to a counter, starting a new one (expiring after `ttlMs`) when none is live. */
  private increment(key: string, ttlMs: number, now: number): number {
    let entry = this.live(key, now);
    if (!entry) {
      entry = { count: 0, expiresAt: now + ttlMs };
      this.counters.set(key, entry);
    }
    entry.count += 1;
    return entry.count;
  }

  private live(key: string, now: number): { count: number; expiresAt: number } | undefined {
    const entry = this.counters.get(key);
    return entry && entry.expiresAt > now ? entry : undefined;
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

// One failure of a subject (KEYS: failures, strikes, lock; ARGV: limit, window, lock, max lock,
// memory). At the limit it locks the subject for lock * 2^(strikes - 1), at most max lock, and
// starts counting failures afresh. Answers the lock's length, or 0.
const FAIL_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n < tonumber(ARGV[1]) then return 0 end
local strikes = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local lock = math.floor(math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(strikes - 1, 30)))
redis.call('SET', KEYS[3], '1', 'PX', lock)
redis.call('DEL', KEYS[1])
return lock
`;

type RedisWithHit = Redis & {
  rateLimitHit(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  rateLimitFail(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

/** Counters shared by every API process through Redis (`REDIS_URL`), one script call per request. */
export class RedisRateLimitStore implements RateLimitStore {
  // ioredis loads with the first counted request: processes without Redis never pay for it.
  private readonly redis: Promise<RedisWithHit>;
  constructor(url: string) {
    this.redis = import('ioredis').then(({ Redis: Client }) => {
      // A bounded wait: with Redis down, a request learns it within half a second, then the failure mode decides.
      const redis = new Client(url, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
        lazyConnect: false,
        commandTimeout: 500,
      });
      redis.defineCommand('rateLimitHit', { lua: HIT_SCRIPT });
      redis.defineCommand('rateLimitFail', { lua: FAIL_SCRIPT });
      // Connection errors surface on the calls; an 'error' listener keeps them from crashing the process.
      redis.on('error', () => {});
      return redis as RedisWithHit;
    });
  }

  async hit(keys: string[], ttlMs: number): Promise<number[]> {
    const counts = await (await this.redis).rateLimitHit(keys.length, ...keys, ttlMs);
    return counts.map(Number);
  }

  async lockRemaining(key: string): Promise<number> {
    // PTTL answers -2 for a missing key (and -1 for one without expiry, which locks never are).
    return Math.max(0, await (await this.redis).pttl(`${key}:l`));
  }

  async recordFailure(key: string, rule: LockoutRule): Promise<number> {
    const redis = await this.redis;
    return Number(
      await redis.rateLimitFail(
        3,
        `${key}:f`,
        `${key}:s`,
        `${key}:l`,
        rule.limit,
        rule.windowMs,
        rule.lockMs,
        rule.maxLockMs,
        rule.memoryMs,
      ),
    );
  }

  async reset(key: string): Promise<void> {
    await (await this.redis).del(`${key}:f`, `${key}:s`, `${key}:l`);
  }

  async close(): Promise<void> {
    const redis = await this.redis;
    await redis.quit().catch(() => redis.disconnect());
  }
}
