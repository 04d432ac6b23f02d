import { type Expression, expressionBuilder } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import { storedVersionFiles } from './document-versions.repository.ts';

/**
 * Query fragment for the storage module's inventory: the tenant's documents as stored files, one
 * row each (`document_id`, `tenant_id`, `storage_key`, `thumbnail_key`, `size`, `sha256`). The
 * caller selects from it as a derived table (`selectFrom(storedFiles(t).as('d'))`), which both
 * dialects flatten into one scan of the documents index. The earlier versions of versioned
 * documents follow as rows of their own, under their version ids (docs/versions.md).
 */
export function storedFiles(tenantId: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('documents')
    .select([
      'documents.id as document_id',
      'documents.tenant_id',
      'documents.storage_key',
      'documents.thumbnail_key',
      'documents.file_size as size',
      'documents.sha256',
    ])
    .where('documents.tenant_id', '=', tenantId)
    .unionAll(storedVersionFiles(tenantId));
}

/**
 * Which documents a provider change applies to: all of the tenant's, those without one, those
 * listed, or those a subquery of one column of document ids selects (so the caller's own table
 * can choose them within the same statement).
 */
export type StoredFileSelection = 'all' | 'unset' | readonly string[] | Expression<Record<string, string>>;

/** SQL of the documents' storage placement (`documents.storage_provider`), written by storage migrations. */
export class StoredFilesRepository {
  /** Whether the tenant still has the document, or the version whose id an inventory row carries. */
  async exists(db: Executor, tenantId: string, documentId: string): Promise<boolean> {
    const row = await db
      .selectFrom('documents')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', documentId)
      .executeTakeFirst();
    if (row !== undefined) return true;
    const version = await db
      .selectFrom('document_versions')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', documentId)
      .executeTakeFirst();
    return version !== undefined;
  }

  /** Records that `provider` holds the bytes of the selected documents. */
  async setProvider(db: Executor, tenantId: string, provider: string, which: StoredFileSelection): Promise<void> {
    if (Array.isArray(which) && which.length === 0) return;
    let q = db.updateTable('documents').set({ storage_provider: provider }).where('tenant_id', '=', tenantId);
    if (which === 'unset') q = q.where('storage_provider', 'is', null);
    // Kysely types a subquery operand by its select builder; any one-column query compiles the same.
    else if (which !== 'all') q = q.where('id', 'in', which as readonly string[] | Expression<string>);
    await q.execute();
  }
}
