import type { DocumentQueries } from '../documents/index.ts';
import type { PassageStore } from '../processing/index.ts';
import { LexicalIndex, SNAPSHOT_FORMAT } from './lexical-index.ts';
import type { SearchRepository } from './search.repository.ts';
import { OverBudgetError, type TenantSource } from './tenant-cache.ts';
import { VectorSet } from './vector-set.ts';

/** Documents whose vectors are read at a time: bounds what a load holds beside the matrix (and how far past the budget it can go). */
const VECTOR_LOAD_BATCH = 2_000;

/**
 * The tenant's passage vectors of one embedding model (`<model>:<dimensions>`), read in batches;
 * a set growing past `budgetBytes` stops the load (OverBudgetError) instead of taking the process's memory.
 */
export function vectorSource(
  passages: PassageStore,
  model: string,
  dims: number,
  budgetBytes: number,
): TenantSource<VectorSet> {
  return {
    key: `vectors:${model}`,
    create: () => new VectorSet(dims),
    all: (db, tenantId) => passages.embeddedDocuments(db, tenantId, model),
    async apply(db, tenantId, set, documentIds) {
      for (let i = 0; i < documentIds.length; i += VECTOR_LOAD_BATCH) {
        const batch = documentIds.slice(i, i + VECTOR_LOAD_BATCH);
        const vectors = await passages.vectors(db, tenantId, model, batch);
        for (const id of batch) set.put(id, vectors.get(id) ?? []);
        if (set.bytes > budgetBytes) {
          throw new OverBudgetError(
            tenantId,
            `semantic search: the passage vectors of tenant ${tenantId} need more than this process's search memory ` +
              `(${Math.round(budgetBytes / 2 ** 20)} MB, SEARCH_MEMORY_MB): ${set.rows.toLocaleString('en')} passages of ${dims} dimensions ` +
              `were read from ${(i + batch.length).toLocaleString('en')} of ${documentIds.length.toLocaleString('en')} documents when it stopped. ` +
              'Its searches rank by keywords with soft matching, without passage vectors, until SEARCH_MEMORY_MB is raised ' +
              '(docs/search.md, "Memory and tenants past one machine").',
          );
        }
      }
    },
  };
}

export interface SnapshotPolicy {
  /** Tenants with fewer documents are never snapshotted (their texts load in well under a second). */
  minDocuments: number;
  /** A new snapshot once this share of the tenant's documents was re-read since the last one. */
  changedShare: number;
  /** Wait this long after a load or refresh before writing (the search that loaded answers first). */
  delayMs: number;
  /** A snapshot failed to save (the index in memory is unaffected). */
  onError(error: unknown): void;
}

export const DEFAULT_SNAPSHOT_POLICY: Omit<SnapshotPolicy, 'onError'> = {
  minDocuments: 1000,
  changedShare: 0.1,
  delayMs: 500,
};

/** Per index: documents re-read since the last snapshot, and whether one is being written. */
const unsaved = new WeakMap<LexicalIndex, { documents: number; saving: boolean }>();

/**
 * The tenant's keyword index, from each document's extracted text, or from its last snapshot
 * (`search_snapshots`) and the documents changed since: a cold load copies arrays instead of
 * tokenising every text (docs/search.md, "Cold start").
 */
export function lexicalSource(
  repository: SearchRepository,
  documents: Pick<DocumentQueries, 'contentOf'>,
  policy: SnapshotPolicy,
): TenantSource<LexicalIndex> {
  const kind = `lexical:${SNAPSHOT_FORMAT}`;
  return {
    key: 'lexical',
    create: () => new LexicalIndex(),
    all: (db, tenantId) => repository.indexedDocuments(db, tenantId),
    async restore(db, tenantId) {
      const snapshot = await repository.snapshot(db, tenantId, kind);
      const index = snapshot ? LexicalIndex.restore(snapshot.data) : null;
      if (index) unsaved.set(index, { documents: 0, saving: false });
      return index;
    },
    refreshed(db, tenantId, index, applied) {
      const state = unsaved.get(index) ?? { documents: index.documents, saving: false };
      if (!unsaved.has(index)) unsaved.set(index, state);
      else state.documents += applied;
      if (
        state.saving ||
        index.documents < policy.minDocuments ||
        state.documents < Math.max(1, policy.changedShare * index.documents)
      )
        return;
      // After the search that loaded it has answered. The version is read with the bytes (one
      // synchronous step); a refresh running meanwhile may have put some newer documents already,
      // which a load applies again (idempotent).
      state.saving = true;
      const timer = setTimeout(() => {
        const version = index.version;
        const documentsAtSave = state.documents;
        Promise.resolve()
          .then(() => repository.saveSnapshot(db, tenantId, kind, version, index.serialize()))
          .then(() => {
            state.documents -= documentsAtSave;
          })
          .catch(policy.onError)
          .finally(() => {
            state.saving = false;
          });
      }, policy.delayMs);
      timer.unref();
    },
    async apply(db, tenantId, index, documentIds) {
      const found = new Set<string>();
      await repository.texts(db, documents, tenantId, documentIds, (id, text) => {
        found.add(id);
        index.put(id, text);
      });
      for (const id of documentIds) if (!found.has(id)) index.remove(id);
    },
  };
}
