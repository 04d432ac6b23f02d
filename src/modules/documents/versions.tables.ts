/**
 * Every version of a document that has more than one (docs/versions.md): version 1 is recorded
 * when version 2 arrives. The document's own row mirrors the current version (`is_current = 1`).
 * Triggers (owner: documents) add the bytes of the other versions to `tenant_document_counts`.
 */
export interface DocumentVersionsTable {
  id: string;
  tenant_id: string;
  document_id: string;
  /** 1, 2, 3... per document, never reused. */
  number: number;
  storage_key: string;
  /** The uploaded file's own name (sanitised). */
  filename: string;
  extension: string;
  file_type: string;
  file_size: number;
  sha256: string;
  /** 0/1: exactly one version of a document is current. */
  is_current: number;
  /** The uploading user; null when uploaded with an API key (or the user is gone). */
  created_by: string | null;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    document_versions: DocumentVersionsTable;
  }
}
