import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

// `documents.storage_provider` (added by this module's migration, not part of the documents
// module's row type, so that module's code is unchanged): which provider holds a document's bytes;
// null means the tenant's write provider (a document stored during a migration's copy).

/** Records the provider of a tenant's documents: all, or those listed. */
export async function markDocuments(db: Executor, tenantId: string, provider: string, documentIds?: readonly string[]): Promise<void> {
  if (documentIds?.length === 0) return;
  const only = documentIds ? sql` and id in (${sql.join(documentIds)})` : sql``;
  await sql`update documents set storage_provider = ${provider} where tenant_id = ${tenantId}${only}`.execute(db);
}

/** Documents stored while a migration copied (no provider recorded) were written to its target. */
export async function markUnsetDocuments(db: Executor, tenantId: string, provider: string): Promise<void> {
  await sql`update documents set storage_provider = ${provider} where tenant_id = ${tenantId} and storage_provider is null`.execute(db);
}

/** Files whose copy failed are still only in the source. */
export async function markFailedAtSource(db: Executor, tenantId: string, migrationId: string, source: string): Promise<void> {
  await sql`update documents set storage_provider = ${source} where tenant_id = ${tenantId} and id in (
    select document_id from storage_migration_files where tenant_id = ${tenantId} and migration_id = ${migrationId} and status = 'failed')`.execute(db);
}

/** Which provider a document's row names (tests, tooling); undefined when there is no such document. */
export async function documentProvider(db: Executor, tenantId: string, documentId: string): Promise<string | null | undefined> {
  const result = await sql<{ storage_provider: string | null }>`select storage_provider from documents where tenant_id = ${tenantId} and id = ${documentId}`.execute(db);
  return result.rows[0]?.storage_provider;
}
