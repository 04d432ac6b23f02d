/** Search's tables (migration 20261123_1300_search); all are written by triggers, read by this module. */

/** The version of a tenant's passages: bumped by every insert or delete of a `document_chunks` row. */
export interface SearchStateTable {
  tenant_id: string;
  version: number;
}

/** The version at which each document's passages last changed (the vector caches' change log). */
export interface SearchChangesTable {
  tenant_id: string;
  document_id: string;
  version: number;
}

/**
 * Documents in the full-text index. SQLite: `id` is the FTS5 rowid (`search_text`); PostgreSQL:
 * `tsv` is the document's tsvector (no `id`).
 */
export interface SearchDocumentsTable {
  id: number;
  tenant_id: string;
  document_id: string;
}

/** A tenant's in-memory index of one kind as bytes, in parts (migration 20261127_2330_search_snapshots). */
export interface SearchSnapshotsTable {
  tenant_id: string;
  kind: string;
  part: number;
  version: number;
  data: Uint8Array;
}

declare module '../../db/schema.ts' {
  interface DB {
    search_state: SearchStateTable;
    search_changes: SearchChangesTable;
    search_documents: SearchDocumentsTable;
    search_snapshots: SearchSnapshotsTable;
  }
}
