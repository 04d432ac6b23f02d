import type { DocumentQueries } from '../documents/index.ts';
import type { PassageStore } from '../processing/index.ts';
import { LexicalIndex } from './lexical-index.ts';
import type { SearchRepository } from './search.repository.ts';
import type { TenantSource } from './tenant-cache.ts';
import { VectorSet } from './vector-set.ts';

/** The tenant's passage vectors of one embedding model (`<model>:<dimensions>`). */
export function vectorSource(passages: PassageStore, model: string, dims: number): TenantSource<VectorSet> {
  return {
    key: `vectors:${model}`,
    create: () => new VectorSet(dims),
    all: (db, tenantId) => passages.embeddedDocuments(db, tenantId, model),
    async apply(db, tenantId, set, documentIds) {
      const vectors = await passages.vectors(db, tenantId, model, documentIds);
      for (const id of documentIds) set.put(id, vectors.get(id) ?? []);
    },
  };
}

/** The tenant's keyword index, from each document's extracted text. */
export function lexicalSource(repository: SearchRepository, documents: Pick<DocumentQueries, 'contentOf'>): TenantSource<LexicalIndex> {
  return {
    key: 'lexical',
    create: () => new LexicalIndex(),
    all: (db, tenantId) => repository.indexedDocuments(db, tenantId),
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
