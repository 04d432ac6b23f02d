import type { Executor } from '../../db/executor.ts';
import type { PassageStore } from '../processing/index.ts';
import type { SearchRepository } from './search.repository.ts';
import { VectorSet } from './vector-set.ts';

/** Total vector memory kept across tenants before the least recently used sets are dropped. */
const DEFAULT_BUDGET_BYTES = 2 * 1024 ** 3;

interface Entry {
  set: VectorSet | null;
  /** The refresh in progress, which concurrent searches of the tenant share. */
  refreshing: Promise<VectorSet> | null;
  usedAt: number;
}

/**
 * Each tenant's passage vectors (of the current model) held in memory, so a semantic search reads
 * no vectors from the database: before each use the tenant's passage version is read (one row);
 * when it moved, only the documents changed since are re-read (`search_changes`, written by
 * triggers in the transactions that change passages). Every process keeps its own cache.
 */
export class VectorCache {
  readonly #entries = new Map<string, Entry>();
  readonly #repository: SearchRepository;
  readonly #passages: PassageStore;
  readonly #budget: number;

  constructor(sources: { repository: SearchRepository; passages: PassageStore }, options: { budgetBytes?: number } = {}) {
    this.#repository = sources.repository;
    this.#passages = sources.passages;
    this.#budget = options.budgetBytes ?? DEFAULT_BUDGET_BYTES;
  }

  /** The tenant's vectors of `model`, brought up to date. */
  async get(db: Executor, tenantId: string, model: string, dims: number): Promise<VectorSet> {
    const key = `${tenantId}\u0000${model}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { set: null, refreshing: null, usedAt: 0 };
      this.#entries.set(key, entry);
    }
    entry.usedAt = Date.now();
    const version = await this.#repository.version(db, tenantId);
    if (entry.set && entry.set.version === version) return entry.set;
    const current = entry;
    current.refreshing ??= this.#refresh(db, tenantId, model, dims, current, version).finally(() => {
      current.refreshing = null;
    });
    const set = await current.refreshing;
    this.#evict(key);
    return set;
  }

  /** Drops every set (tests, shutdown). */
  clear(): void {
    this.#entries.clear();
  }

  async #refresh(db: Executor, tenantId: string, model: string, dims: number, entry: Entry, version: number): Promise<VectorSet> {
    const repo = this.#repository;
    const passages = this.#passages;
    // A version that went backwards (the state row was recreated) cannot be followed: reload everything.
    let set = entry.set && entry.set.version <= version ? entry.set : null;
    // The version is read before the rows: a change committed meanwhile is applied now and again next time (idempotent).
    const changed = set ? await repo.changedSince(db, tenantId, set.version) : await passages.embeddedDocuments(db, tenantId, model);
    if (!set) set = new VectorSet(dims);
    const vectors = await passages.vectors(db, tenantId, model, changed);
    for (const id of changed) set.put(id, vectors.get(id) ?? []);
    set.version = Math.max(set.version, version);
    entry.set = set;
    return set;
  }

  #evict(keep: string): void {
    let total = 0;
    for (const e of this.#entries.values()) total += e.set?.bytes ?? 0;
    if (total <= this.#budget) return;
    const byAge = [...this.#entries.entries()].filter(([k, e]) => k !== keep && e.set && !e.refreshing).sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [k, e] of byAge) {
      if (total <= this.#budget) break;
      total -= e.set!.bytes;
      this.#entries.delete(k);
    }
  }
}
