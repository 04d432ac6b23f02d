import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DocumentQueries } from '../documents/index.ts';
import './search.tables.ts';

/** Documents per `IN (...)` list: well under SQLite's bound-parameter limit. */
const IN_BATCH = 500;

/**
 * SQL of search's own tables: the change log, and the documents in the full-text index with their
 * text (read through the documents module's `contentOf`). Passages and vectors are read through
 * the processing module's entry.
 */
export class SearchRepository {
  /** The tenant's change version (0 before anything was indexed): moves with every change of a document's text or passages. */
  async version(db: Executor, tenantId: string): Promise<number> {
    const row = await db.selectFrom('search_state').select('version').where('tenant_id', '=', tenantId).executeTakeFirst();
    return row ? Number(row.version) : 0;
  }

  /** Documents whose text or passages changed after `version`. */
  async changedSince(db: Executor, tenantId: string, version: number): Promise<string[]> {
    const rows = await db.selectFrom('search_changes').select('document_id').where('tenant_id', '=', tenantId).where('version', '>', version).execute();
    return rows.map((r) => r.document_id);
  }

  /** Every document of the tenant with indexed text. */
  async indexedDocuments(db: Executor, tenantId: string): Promise<string[]> {
    const rows = await db.selectFrom('search_documents').select('document_id').where('tenant_id', '=', tenantId).execute();
    return rows.map((r) => r.document_id);
  }

  /** The indexed text of these documents (a document without text is absent). */
  async texts(db: Executor, documents: Pick<DocumentQueries, 'contentOf'>, tenantId: string, documentIds: string[], visit: (id: string, text: string) => void): Promise<void> {
    for (let i = 0; i < documentIds.length; i += IN_BATCH) {
      const batch = documentIds.slice(i, i + IN_BATCH);
      const rows = await sql<{ document_id: string; text: string | null }>`
        select s.document_id as document_id, ${documents.contentOf(tenantId, sql.ref('s.document_id'))} as text
        from search_documents s
        where s.tenant_id = ${tenantId} and s.document_id in (${sql.join(batch.map((id) => sql`${id}`))})`.execute(db);
      for (const r of rows.rows) if (r.text) visit(r.document_id, r.text);
    }
  }
}
