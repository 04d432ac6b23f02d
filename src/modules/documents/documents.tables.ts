import type { Generated } from 'kysely';

/*
 * The document library's tables: folders, documents and their extracted contents, tags, shares,
 * batch uploads, and SQLite's filename-index rows. Part of their write path is database triggers
 * (src/db/schema.sqlite.sql, src/db/schema.postgres.sql, `owner: documents`).
 */

export interface FoldersTable {
  id: string;
  tenant_id: string;
  parent_id: string | null;
  name: string;
  /** Lower-cased name (siblings are unique case-insensitively). */
  name_key: string;
  color: string;
  icon: string;
  created_by: string | null;
  /** Documents directly inside, kept by triggers on `documents`. */
  document_count: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface DocumentsTable {
  id: string;
  tenant_id: string;
  folder_id: string | null;
  /** The uploading user; null when uploaded with an API key. */
  owner_id: string | null;
  collection_id: string | null;
  filename: string;
  original_filename: string;
  /** Lower-case extension without the dot (`pdf`). */
  extension: string;
  /** Media type. */
  file_type: string;
  file_size: number;
  sha256: string;
  storage_key: string;
  thumbnail_key: string | null;
  thumbnail_type: string | null;
  status: string;
  ai_status: string;
  enable_ai: number;
  ai_summary: string | null;
  /** JSON string[]. */
  ai_tags: string;
  /** JSON {people, organizations, dates, places, amounts}: plain lists. */
  entities: string;
  /** One of the AI document types (`invoice`, …); null before enrichment. */
  ai_document_type: string | null;
  /** JSON: confidences, key fields, tag details and typed entities of the last enrichment; null before. */
  ai_enrichment: string | null;
  /** JSON object. */
  metadata: string;
  /** JSON {stage, message} or null. */
  processing_error: string | null;
  /** Which storage provider holds the bytes (set by storage migrations); null: the tenant's write provider. */
  storage_provider: string | null;
  created_at: number;
  updated_at: number;
}

export interface DocumentContentsTable {
  document_id: string;
  tenant_id: string;
  content: string;
  pages: number | null;
  /** JSON string[]: the text of each page, slide or sheet; null where the format has none. */
  page_texts: string | null;
  created_at: number;
}

export interface TagsTable {
  id: string;
  tenant_id: string;
  name: string;
  name_key: string;
  color: string;
  created_at: number;
}

export interface DocumentTagsTable {
  tenant_id: string;
  document_id: string;
  tag_id: string;
  created_at: number;
}

export interface DocumentSharesTable {
  id: string;
  tenant_id: string;
  document_id: string;
  user_id: string | null;
  workspace_id: string | null;
  permission: string;
  created_by: string | null;
  created_at: number;
}

/**
 * SQLite only (migration 20261127_2100_document_name_index): each document's row in the filename
 * trigram index, `id` being its rowid in the FTS5 table `document_names`. Written by triggers.
 */
export interface DocumentNameRowsTable {
  id: number;
  tenant_id: string;
  document_id: string;
}

/**
 * Each entity a document's `entities` names, in comparison form (migration
 * 20261201_0200_document_filters): the list's `entity` filter. Written by triggers on `documents`.
 */
export interface DocumentEntitiesTable {
  tenant_id: string;
  document_id: string;
  /** The key of the `entities` list: `people`, `organizations`, `dates`, `locations`, `amounts`. */
  kind: string;
  /** `lower(trim(value))` (an amount's `text`), at most 200 characters. */
  value_key: string;
}

/** How far a document's processing has got, while it is processed (removed when it ends). */
export interface DocumentProgressTable {
  document_id: string;
  tenant_id: string;
  /** `extraction`, `transcription`, `enrichment`, `embedding`. */
  stage: string;
  /** Pages (slides, TIFF pages) extraction has read, of `pages_total`; null for formats without pages. */
  pages_done: number | null;
  pages_total: number | null;
  updated_at: number;
}

export interface BatchJobsTable {
  id: string;
  tenant_id: string;
  collection_id: string;
  created_by: string | null;
  total: number;
  /** JSON [{filename, error, code, message}]. */
  rejected: string;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    folders: FoldersTable;
    documents: DocumentsTable;
    document_contents: DocumentContentsTable;
    tags: TagsTable;
    document_tags: DocumentTagsTable;
    document_shares: DocumentSharesTable;
    document_name_rows: DocumentNameRowsTable;
    batch_jobs: BatchJobsTable;
    document_entities: DocumentEntitiesTable;
    document_progress: DocumentProgressTable;
  }
}
