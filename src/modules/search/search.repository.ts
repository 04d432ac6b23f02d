import type { Expression, SqlBool } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { PassageVector } from './vector-set.ts';
import './search.tables.ts';

/** A document as search results show it. */
export interface ResultDocument {
  id: string;
  filename: string;
  ai_summary: string | null;
  folder_id: string | null;
  created_at: number;
}

/** Documents per `IN (...)` list: well under SQLite's bound-parameter limit. */
const IN_BATCH = 500;

/** SQL of search outside the engines: allowed documents, result rows, passages, vectors, change log. */
export class SearchRepository {
  /** Ids of the tenant's documents that pass `where` (visibility and filters). */
  async allowedDocumentIds(db: Executor, tenantId: string, where: Expression<SqlBool>): Promise<string[]> {
    const rows = await db.selectFrom('documents').select('documents.id').where('documents.tenant_id', '=', tenantId).where(where).execute();
    return rows.map((r) => r.id);
  }

  /** The result rows of these documents that still pass `where` (a document deleted or hidden meanwhile drops out). */
  async documents(db: Executor, tenantId: string, ids: string[], where: Expression<SqlBool>): Promise<Map<string, ResultDocument>> {
    const out = new Map<string, ResultDocument>();
    for (let i = 0; i < ids.length; i += IN_BATCH) {
      const rows = await db
        .selectFrom('documents')
        .select(['documents.id', 'documents.filename', 'documents.ai_summary', 'documents.folder_id', 'documents.created_at'])
        .where('documents.tenant_id', '=', tenantId)
        .where('documents.id', 'in', ids.slice(i, i + IN_BATCH))
        .where(where)
        .execute();
      for (const r of rows) out.set(r.id, { ...r, created_at: Number(r.created_at) });
    }
    return out;
  }

  /** Passage texts by `documentId:chunkIndex`. */
  async passages(db: Executor, tenantId: string, wanted: { documentId: string; chunkIndex: number }[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (wanted.length === 0) return out;
    const rows = await db
      .selectFrom('document_chunks')
      .select(['document_id', 'chunk_index', 'text'])
      .where('tenant_id', '=', tenantId)
      .where((eb) => eb.or(wanted.map((w) => eb.and([eb('document_id', '=', w.documentId), eb('chunk_index', '=', w.chunkIndex)]))))
      .execute();
    for (const r of rows) out.set(`${r.document_id}:${r.chunk_index}`, r.text);
    return out;
  }

  /** The tenant's tag names (for query understanding), at most `limit`. */
  async tagNames(db: Executor, tenantId: string, limit: number): Promise<string[]> {
    const rows = await db.selectFrom('tags').select('name').where('tenant_id', '=', tenantId).orderBy('name_key').limit(limit).execute();
    return rows.map((r) => r.name);
  }

  /** The tenant's passage version (0 before any passage was written). */
  async version(db: Executor, tenantId: string): Promise<number> {
    const row = await db.selectFrom('search_state').select('version').where('tenant_id', '=', tenantId).executeTakeFirst();
    return row ? Number(row.version) : 0;
  }

  /** Documents whose passages changed after `version`. */
  async changedSince(db: Executor, tenantId: string, version: number): Promise<string[]> {
    const rows = await db.selectFrom('search_changes').select('document_id').where('tenant_id', '=', tenantId).where('version', '>', version).execute();
    return rows.map((r) => r.document_id);
  }

  /** Every document of the tenant with vectors of the model. */
  async documentsWithVectors(db: Executor, tenantId: string, model: string): Promise<string[]> {
    const rows = await db
      .selectFrom('document_chunks')
      .select('document_id')
      .distinct()
      .where('tenant_id', '=', tenantId)
      .where('embedding_model', '=', model)
      .execute();
    return rows.map((r) => r.document_id);
  }

  /** The vectors of the model for these documents (documents without any are absent), in passage order. */
  async vectors(db: Executor, tenantId: string, model: string, documentIds: string[]): Promise<Map<string, PassageVector[]>> {
    const out = new Map<string, PassageVector[]>();
    for (let i = 0; i < documentIds.length; i += IN_BATCH) {
      const rows = await db
        .selectFrom('document_chunks')
        .select(['document_id', 'chunk_index', 'embedding'])
        .where('tenant_id', '=', tenantId)
        .where('embedding_model', '=', model)
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
}
