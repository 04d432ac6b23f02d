/**
 * An in-process cache of resolved credentials (API key hash → key and tenant; session → session,
 * user and tenant), so an authenticated request needs no database round trip for who is calling.
 *
 * - Bounded: at most `maxEntries` (the oldest goes first) and each entry at most `ttlMs` old.
 * - Only successes are stored; a refusal always comes from a fresh lookup.
 * - Entries carry tags (`k:<api key id>`, `u:<user id>`, `s:<session id>`, `t:<tenant id>`);
 *   `invalidate(tags)` drops every entry holding one of them. Tags arrive from every process
 *   through the identity change feed (LISTEN/NOTIFY, or the SQLite change log).
 * - Usable only while that feed is live (`isLive`): while it is down, reads miss and writes are
 *   dropped, so a missed invalidation can never be served.
 * - A lookup takes a `stamp()` before reading the database and passes it to `set`: if anything was
 *   invalidated meanwhile, what it read may predate the change and is not stored.
 */
export class CredentialCache<V> {
  private readonly entries = new Map<string, { value: V; tags: readonly string[]; expiresAt: number }>();
  private readonly byTag = new Map<string, Set<string>>();
  private generation = 0;
  private hits = 0;
  private misses = 0;
  private readonly options: { maxEntries: number; ttlMs: number; now: () => number; isLive: () => boolean };

  constructor(options: CredentialCache<V>['options']) {
    if (!(options.maxEntries >= 1) || !(options.ttlMs > 0))
      throw new RangeError('credential cache needs maxEntries >= 1 and ttlMs > 0');
    this.options = options;
  }

  /** Entries held, and lookups answered from the cache (hits) or not (misses) since start. */
  stats(): { entries: number; hits: number; misses: number; live: boolean } {
    return { entries: this.entries.size, hits: this.hits, misses: this.misses, live: this.options.isLive() };
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.options.now() && this.options.isLive()) {
      this.hits++;
      return entry.value;
    }
    if (entry) this.delete(key);
    this.misses++;
    return undefined;
  }

  /** The current generation, to hand to `set` after a lookup. */
  stamp(): number {
    return this.generation;
  }

  /** Stores a resolved credential, unless something was invalidated since `stamp` or the feed is down. */
  set(key: string, value: V, tags: readonly string[], stamp: number): void {
    if (stamp !== this.generation || !this.options.isLive()) return;
    this.delete(key);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    this.entries.set(key, { value, tags, expiresAt: this.options.now() + this.options.ttlMs });
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys) keys.add(key);
      else this.byTag.set(tag, new Set([key]));
    }
  }

  /** Drops every entry tagged with one of `tags`, and every lookup still in flight. */
  invalidate(tags: Iterable<string>): void {
    this.generation++;
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      for (const key of [...keys]) this.delete(key);
    }
  }

  /** Drops everything (the feed reconnected, or fell too far behind to know what changed). */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byTag.clear();
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(tag);
    }
  }
}
