/**
 * Who sees which document (migration 20261123_1600_document_visibility): one row per user and
 * document they reach by ownership or by shares, kept by database triggers on `documents`,
 * `document_shares`, `workspace_members` and `users`, with the document's sort keys copied so a
 * member's list is one index range per sort. Never written by the application.
 */
export interface DocumentVisibilityTable {
  tenant_id: string;
  user_id: string;
  document_id: string;
  /** 1 when the user is the document's `owner_id`. */
  owned: number;
  /** Shares that reach the user: direct ones, plus one per (workspace share, membership) pair. */
  shares: number;
  /** Copies of the document's columns (`name_key` = lower(filename)), for the list indexes. */
  folder_id: string | null;
  name_key: string;
  file_size: number;
  created_at: number;
  updated_at: number;
}

/** Per tenant, its documents and their bytes. Kept by triggers on `documents`; no row = none yet. */
export interface TenantDocumentCountsTable {
  tenant_id: string;
  documents: number;
  bytes: number;
}

declare module '../../../db/schema.ts' {
  interface DB {
    document_visibility: DocumentVisibilityTable;
    tenant_document_counts: TenantDocumentCountsTable;
  }
}
