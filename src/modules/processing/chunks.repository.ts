import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { bytesToVector, vectorToBytes } from '../../lib/vectors.ts';
import type { DocumentChunksTable } from './processing.tables.ts';

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

/** A passage's stored vector as it is (float32 little-endian bytes), for readers that decode in bulk (search). */
export interface PassageVector {
  chunkIndex: number;
  bytes: Uint8Array;
}

/** A passage's text, located by its document and index. */
export interface PassageText {
  documentId: string;
  chunkIndex: number;
  text: string;
}

/** Rows per insert statement (SQLite allows 32,766 bound values; 7 columns a row). */
const ROWS_PER_INSERT = 500;
/** Documents per `IN (...)` list: well under SQLite's bound-parameter limit. */
const IN_BATCH = 500;

/** SQL for document passages and their embeddings; every query takes the tenant. */
export class ChunksRepository {
  /** Replaces every passage of a document (a re-run never mixes old and new passages). */
  async replace(
    db: Executor,
    tenantId: string,
    documentId: string,
    chunks: NewChunk[],
    embeddingModel: string | null,
    at: number,
  ): Promise<void> {
    await db
      .deleteFrom('document_chunks')
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .execute();
    const rows = chunks.map(
      (c): Insertable<DocumentChunksTable> => ({
        document_id: documentId,
        chunk_index: c.index,
        tenant_id: tenantId,
        page: c.page,
        text: c.text,
        embedding: c.embedding ? vectorToBytes(c.embedding) : null,
        embedding_model: c.embedding ? embeddingModel : null,
        created_at: at,
      }),
    );
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      await db
        .insertInto('document_chunks')
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .execute();
    }
  }

  /** A document's passages in order, with their vectors when made by `embeddingModel` (else null: not comparable). */
  async forDocument(
    db: Executor,
    tenantId: string,
    documentId: string,
    embeddingModel: string,
  ): Promise<StoredPassage[]> {
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

  /** The texts of these passages (missing ones are absent). */
  async texts(
    db: Executor,
    tenantId: string,
    wanted: { documentId: string; chunkIndex: number }[],
  ): Promise<PassageText[]> {
    if (wanted.length === 0) return [];
    const rows = await db
      .selectFrom('document_chunks')
      .select(['document_id', 'chunk_index', 'text'])
      .where('tenant_id', '=', tenantId)
      .where((eb) =>
        eb.or(wanted.map((w) => eb.and([eb('document_id', '=', w.documentId), eb('chunk_index', '=', w.chunkIndex)]))),
      )
      .execute();
    return rows.map((r) => ({ documentId: r.document_id, chunkIndex: r.chunk_index, text: r.text }));
  }

  /** Every document of the tenant with vectors of `embeddingModel`. */
  async embeddedDocuments(db: Executor, tenantId: string, embeddingModel: string): Promise<string[]> {
    const rows = await db
      .selectFrom('document_chunks')
      .select('document_id')
      .distinct()
      .where('tenant_id', '=', tenantId)
      .where('embedding_model', '=', embeddingModel)
      .execute();
    return rows.map((r) => r.document_id);
  }

  /** The vectors of `embeddingModel` of these documents (documents without any are absent), in passage order. */
  async vectors(
    db: Executor,
    tenantId: string,
    embeddingModel: string,
    documentIds: string[],
  ): Promise<Map<string, PassageVector[]>> {
    const out = new Map<string, PassageVector[]>();
    for (let i = 0; i < documentIds.length; i += IN_BATCH) {
      const rows = await db
        .selectFrom('document_chunks')
        .select(['document_id', 'chunk_index', 'embedding'])
        .where('tenant_id', '=', tenantId)
        .where('embedding_model', '=', embeddingModel)
        .where('document_id', 'in', documentIds.slice(i, i + IN_BATCH))
        .where('embedding', 'is not', null)
        .orderBy('document_id')
        .orderBy('chunk_index')
        .execute();
      for (const r of rows) {
        let list = out.get(r.document_id);
        if (!list) {
          list = [];
          out.set(r.document_id, list);
        }
        list.push({ chunkIndex: r.chunk_index, bytes: r.embedding! });
      }
    }
    return out;
  }

  /** Documents holding vectors made by another model than `embeddingModel` (at most `limit`). */
  async staleDocuments(
    db: Executor,
    embeddingModel: string,
    limit: number,
  ): Promise<{ tenantId: string; documentId: string }[]> {
    const rows = await db
      .selectFrom('document_chunks')
      .select(['tenant_id', 'document_id'])
      .distinct()
      .where('embedding', 'is not', null)
      .where('embedding_model', '<>', embeddingModel)
      .orderBy('document_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ tenantId: r.tenant_id, documentId: r.document_id }));
  }

  /** How many documents hold vectors of another model. */
  async countStale(db: Executor, embeddingModel: string): Promise<number> {
    const row = await db
      .selectFrom('document_chunks')
      .select((eb) => eb.fn.count<number>('document_id').distinct().as('n'))
      .where('embedding', 'is not', null)
      .where('embedding_model', '<>', embeddingModel)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Whether a document's passages are still these texts, in order. */
  async sameTexts(db: Executor, tenantId: string, documentId: string, texts: string[]): Promise<boolean> {
    const rows = await db
      .selectFrom('document_chunks')
      .select('text')
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .orderBy('chunk_index')
      .execute();
    return rows.length === texts.length && rows.every((r, i) => r.text === texts[i]);
  }
}
