import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from '../../db/executor.ts';
import type { SearchRepository } from './search.repository.ts';

/** Total memory kept across tenants (vectors and keyword indexes) before the least recently used are dropped. */
const DEFAULT_BUDGET_BYTES = 2 * 1024 ** 3;

/** An in-memory index of one tenant, as of a change version. */
export interface TenantIndex {
  version: number;
  readonly bytes: number;
}

/** How one kind of index is filled: everything at first, then the documents changed since. */
export interface TenantSource<T extends TenantIndex> {
  /** Distinguishes kinds (and models) of index in the cache. */
  readonly key: string;
  create(): T;
  /** Every document to load into a new index. */
  all(db: Executor, tenantId: string): Promise<string[]>;
  /** Re-reads these documents (a document now absent is removed). */
  apply(db: Executor, tenantId: string, index: T, documentIds: string[]): Promise<void>;
  /** A persisted copy of the index to start from instead of `all` (its version says which changes it holds), or null. */
  restore?(db: Executor, tenantId: string): Promise<T | null>;
  /** Told after each load or refresh how many documents were read: may persist the index (in the background). */
  refreshed?(db: Executor, tenantId: string, index: T, applied: number): void;
}

/**
 * One tenant's index does not fit this process's memory budget (docs/search.md, "Memory"): thrown
 * while loading, before more than the budget (and one batch) is held; the cache remembers it for a
 * while so that each search does not start the load again.
 */
export class OverBudgetError extends Error {
  readonly tenantId: string;
  constructor(tenantId: string, message: string) {
    super(message);
    this.name = 'OverBudgetError';
    this.tenantId = tenantId;
  }
}

/** How long a tenant found over the budget is not loaded again (a budget raised takes effect at the next start). */
const OVER_BUDGET_RETRY_MS = 10 * 60_000;

interface Entry {
  index: TenantIndex | null;
  /** The refresh in progress, which concurrent searches of the tenant share. */
  refreshing: Promise<TenantIndex> | null;
  usedAt: number;
}

/**
 * Each tenant's search indexes held in memory (passage vectors of the current model, the keyword
 * index), so a search reads no postings or vectors from the database: before each use the
 * tenant's change version is read (one row); when it moved, only the documents changed since are
 * re-read (`search_changes`, written by triggers in the transactions that change a document's text
 * or passages). Every process keeps its own cache.
 */
/** Inside `TenantCache.scoped`: the change version read per tenant in this request. */
const requestVersions = new AsyncLocalStorage<Map<string, Promise<number>>>();

export class TenantCache {
  readonly #entries = new Map<string, Entry>();
  readonly #repository: SearchRepository;
  readonly #budget: number;

  readonly #overBudget = new Map<string, { error: OverBudgetError; at: number }>();
  readonly #onOverBudget: (error: OverBudgetError) => void;

  constructor(
    repository: SearchRepository,
    options: { budgetBytes?: number; onOverBudget?: (error: OverBudgetError) => void } = {},
  ) {
    this.#repository = repository;
    this.#budget = options.budgetBytes ?? DEFAULT_BUDGET_BYTES;
    this.#onOverBudget = options.onOverBudget ?? (() => {});
  }

  /** The memory budget in bytes, shared by every tenant's indexes: a single index may use at most this. */
  get budgetBytes(): number {
    return this.#budget;
  }

  /** Bytes held now, and how many indexes are refused as over the budget. */
  usage(): { heldBytes: number; overBudget: number } {
    let heldBytes = 0;
    for (const e of this.#entries.values()) heldBytes += e.index?.bytes ?? 0;
    const now = Date.now();
    let overBudget = 0;
    for (const f of this.#overBudget.values()) if (now - f.at < OVER_BUDGET_RETRY_MS) overBudget++;
    return { heldBytes, overBudget };
  }

  /** The tenant's index of this kind, brought up to date. */
  async get<T extends TenantIndex>(db: Executor, tenantId: string, source: TenantSource<T>): Promise<T> {
    const key = `${tenantId}\u0000${source.key}`;
    const refused = this.#overBudget.get(key);
    if (refused && Date.now() - refused.at < OVER_BUDGET_RETRY_MS) throw refused.error;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { index: null, refreshing: null, usedAt: 0 };
      this.#entries.set(key, entry);
    }
    entry.usedAt = Date.now();
    const version = await this.#version(db, tenantId);
    if (entry.index && entry.index.version === version) return entry.index as T;
    const current = entry;
    current.refreshing ??= this.#refresh(db, tenantId, source, current, version)
      .catch((error: unknown) => {
        if (error instanceof OverBudgetError) {
          // Whatever was loaded goes: the tenant's index is not kept in part.
          this.#entries.delete(key);
          this.#overBudget.set(key, { error, at: Date.now() });
          this.#onOverBudget(error);
        }
        throw error;
      })
      .finally(() => {
        current.refreshing = null;
      });
    const index = await current.refreshing;
    this.#evict(key);
    return index as T;
  }

  /**
   * Runs `work` (one search request) reading each tenant's change version once: its several index
   * lookups (keyword index, vectors, each arm of a hybrid search) share that read. A read is only
   * shared inside the scope, which starts with the request, so a change committed before the request
   * is always seen.
   */
  scoped<T>(work: () => Promise<T>): Promise<T> {
    return requestVersions.getStore() ? work() : requestVersions.run(new Map(), work);
  }

  #version(db: Executor, tenantId: string): Promise<number> {
    const scope = requestVersions.getStore();
    let read = scope?.get(tenantId);
    if (!read) {
      read = this.#repository.version(db, tenantId);
      scope?.set(tenantId, read);
    }
    return read;
  }

  /** The tenant's index of this kind as it is, without waiting for a load or refresh (null when none is loaded). */
  peek<T extends TenantIndex>(tenantId: string, source: TenantSource<T>): T | null {
    return (this.#entries.get(`${tenantId}\u0000${source.key}`)?.index as T | undefined) ?? null;
  }

  /** Drops every index (tests, shutdown). */
  clear(): void {
    this.#entries.clear();
    this.#overBudget.clear();
  }

  async #refresh<T extends TenantIndex>(
    db: Executor,
    tenantId: string,
    source: TenantSource<T>,
    entry: Entry,
    version: number,
  ): Promise<T> {
    // A version that went backwards (the state row was recreated) cannot be followed: reload everything.
    let index = entry.index && entry.index.version <= version ? (entry.index as T) : null;
    if (!index && source.restore) {
      // A snapshot newer than the state row (recreated since) cannot be followed either.
      const restored = await source.restore(db, tenantId);
      if (restored && restored.version <= version) index = restored;
    }
    // The version is read before the rows: a change committed meanwhile is applied now and again next time (idempotent).
    const changed = index
      ? await this.#repository.changedSince(db, tenantId, index.version)
      : await source.all(db, tenantId);
    if (!index) index = source.create();
    await source.apply(db, tenantId, index, changed);
    index.version = Math.max(index.version, version);
    entry.index = index;
    source.refreshed?.(db, tenantId, index, changed.length);
    return index;
  }

  #evict(keep: string): void {
    let total = 0;
    for (const e of this.#entries.values()) total += e.index?.bytes ?? 0;
    if (total <= this.#budget) return;
    const byAge = [...this.#entries.entries()]
      .filter(([k, e]) => k !== keep && e.index && !e.refreshing)
      .sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [k, e] of byAge) {
      if (total <= this.#budget) break;
      total -= e.index!.bytes;
      this.#entries.delete(k);
    }
  }
}
