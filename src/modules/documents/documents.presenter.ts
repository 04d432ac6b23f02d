import { iso } from '../../lib/clock.ts';
import type { BatchUpload } from './document-uploads.service.ts';
import type { Document } from './documents.repository.ts';

/** The entity kinds the API shows (spec, Document). */
function presentEntities(d: Document) {
  return { people: d.entities.people, organizations: d.entities.organizations, dates: d.entities.dates };
}

/** A document in a list; `entities` only for the API-key variant (spec, Document). */
export function presentDocumentListItem(d: Document, tags: string[], options: { withEntities: boolean }) {
  return {
    id: d.id,
    filename: d.filename,
    original_filename: d.originalFilename,
    file_type: d.fileType,
    file_size: d.fileSize,
    folder_id: d.folderId,
    status: d.status,
    ai_status: d.aiStatus,
    ai_summary: d.aiSummary,
    ai_tags: d.aiTags,
    tags,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
    ...(options.withEntities ? { entities: presentEntities(d) } : {}),
  };
}

/** A document with its detail fields (single get). `apiBase` is e.g. `https://host/api/v1`. */
export function presentDocumentDetail(d: Document, tags: string[], apiBase: string) {
  return {
    ...presentDocumentListItem(d, tags, { withEntities: false }),
    storage_path: d.storageKey,
    thumbnail_url: `${apiBase}/documents/${d.id}/thumbnail`,
    ai_thumbnail_url: null,
    entities: presentEntities(d),
    metadata: d.metadata,
    processing_error: d.processingError,
  };
}

/** The answer to a single upload. */
export function presentUpload(d: Document) {
  return { id: d.id, filename: d.filename, status: d.status, ai_status: d.aiStatus, created_at: iso(d.createdAt) };
}

/** The answer to a batch upload: the documents made and the files refused. */
export function presentBatchUpload(b: BatchUpload) {
  return {
    collection_id: b.collectionId,
    batch_job_id: b.batchJobId,
    documents: b.documents.map((d) => ({ id: d.id, filename: d.filename, status: d.status, ai_status: d.aiStatus })),
    rejected: b.rejected,
  };
}

/** The answer to a reprocess request (202). */
export function presentReprocess(d: Document) {
  return { message: 'Reprocessing started', document_id: d.id, status: d.status, ai_status: d.aiStatus };
}
