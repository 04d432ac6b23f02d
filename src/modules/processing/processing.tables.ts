/*
 * Processing's tables besides learned tags (learned-tags.tables.ts): the passages of documents it
 * embeds, for semantic search and chat.
 */

/** A passage of a document and its embedding (float32, little-endian), for semantic search and chat. */
export interface DocumentChunksTable {
  document_id: string;
  chunk_index: number;
  tenant_id: string;
  page: number | null;
  text: string;
  embedding: Uint8Array | null;
  /** `<model>:<dimensions>`; vectors of different models are never compared. */
  embedding_model: string | null;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    document_chunks: DocumentChunksTable;
  }
}
