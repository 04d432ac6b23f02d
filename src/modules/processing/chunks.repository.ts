import type { Executor } from '../../db/executor.ts';
import { bytesToVector, vectorToBytes } from '../../lib/vectors.ts';

/** A passage ready to store: its text, page, and its embedding when AI is on. */
export interface NewChunk {
  index: number;
  page: number | null;
  text: string;
  embedding: Float32Array | null;
}

/** A stored passage with its vector (null when AI was off or another model made it). */
export interface StoredPassage {
  index: number;
  page: number | null;
  text: string;
  vector: Float32Array | null;
}

/** Rows per insert statement (SQLite allows 32,766 bound values; 7 columns a row). */
const ROWS_PER_INSERT = 500;

/** SQL for document passages and their embeddings; every query takes the tenant. */
export class ChunksRepository {
  /** Replaces every passage of a document (a re-run never mixes old and new passages). */
  async replace(db: Executor, tenantId: string, documentId: string, chunks: NewChunk[], embeddingModel: string | null, at: number): Promise<void> {
    await db.deleteFrom('document_chunks').where('tenant_id', '=', tenantId).where('document_id', '=', documentId).execute();
    const rows = chunks.map((c) => ({
      document_id: documentId,
      chunk_index: c.index,
      tenant_id: tenantId,
      page: c.page,
      text: c.text,
      embedding: c.embedding ? vectorToBytes(c.embedding) : null,
      embedding_model: c.embedding ? embeddingModel : null,
      created_at: at,
    }));
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      await db.insertInto('document_chunks').values(rows.slice(i, i + ROWS_PER_INSERT)).execute();
    }
  }

  /** A document's passages in order, with their vectors when made by `embeddingModel` (else null: not comparable). */
  async forDocument(db: Executor, tenantId: string, documentId: string, embeddingModel: string): Promise<StoredPassage[]> {
    const rows = await db
      .selectFrom('document_chunks')
      .select(['chunk_index', 'page', 'text', 'embedding', 'embedding_model'])
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .orderBy('chunk_index')
      .execute();
    return rows.map((r) => ({
      index: r.chunk_index,
      page: r.page,
      text: r.text,
      vector: r.embedding && r.embedding_model === embeddingModel ? bytesToVector(r.embedding) : null,
    }));
  }

  async count(db: Executor, tenantId: string, documentId: string): Promise<number> {
    const row = await db
      .selectFrom('document_chunks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
