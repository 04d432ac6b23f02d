import type { Insertable } from 'kysely';
import type { DocumentsTable } from '../../src/modules/documents/documents.tables.ts';

/**
 * A complete `documents` row for tests and benchmarks that insert rows directly (quotas, lists of
 * 100,000 documents): a processed text file by default, with the given fields on top.
 */
export function documentRow(
  tenantId: string,
  id: string,
  fields: Partial<Insertable<DocumentsTable>> = {},
): Insertable<DocumentsTable> {
  const now = Date.now();
  return {
    id,
    tenant_id: tenantId,
    folder_id: null,
    owner_id: null,
    collection_id: null,
    filename: `${id}.txt`,
    original_filename: `${id}.txt`,
    extension: 'txt',
    file_type: 'text/plain',
    file_size: 0,
    sha256: '0'.repeat(64),
    storage_key: `tenants/${tenantId}/documents/${id}`,
    thumbnail_key: null,
    thumbnail_type: null,
    status: 'completed',
    ai_status: 'skipped',
    enable_ai: 0,
    ai_summary: null,
    ai_tags: '[]',
    entities: '{}',
    metadata: '{}',
    processing_error: null,
    created_at: now,
    updated_at: now,
    ...fields,
  };
}
