import type { Executor } from '../../db/executor.ts';
import './search.tables.ts';

/**
 * SQL of search's own change log (the full-text engines query their index themselves). Documents,
 * passages and vectors are read through the documents and processing modules' entries.
 */
export class SearchRepository {
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
}
