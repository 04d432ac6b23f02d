import { iso } from '../../lib/clock.ts';
import type { BatchUpload, SingleUpload } from './document-uploads.service.ts';
import type { Document, DocumentProgress } from './documents.repository.ts';

/**
 * Addition (docs/api-decisions.md §18): while `status` is `processing`, the stage it is in and the
 * pages extraction has read; `queued` before the first step starts. Null once processing ended.
 */
function presentProgress(d: Document, progress: DocumentProgress | null | undefined) {
  if (d.status !== 'processing') return null;
  return {
    stage: progress?.stage ?? 'queued',
    pages_done: progress?.pagesDone ?? null,
    pages_total: progress?.pagesTotal ?? null,
  };
}

/**
 * The entities the API shows: the spec's three lists as the spec shapes them, then (additions,
 * docs/api-decisions.md §6) `locations`, `amounts` as money and `details` with a confidence for
 * every entity. Documents enriched before confidences were kept have `details: null` and amounts
 * read back from their plain form with `confidence: null`.
 */
function presentEntities(d: Document) {
  const details = d.aiEnrichment?.entities ?? null;
  const plainAmounts = (d.entities['amounts'] ?? []).map((text) => {
    const [currency = '', number = ''] = text.split(' ');
    return { value: Number(number.replace(/,/g, '')), currency, text, confidence: null };
  });
  return {
    people: d.entities.people,
    organizations: d.entities.organizations,
    dates: d.entities.dates,
    locations: details ? details.locations.map((l) => l.name) : (d.entities['places'] ?? []),
    amounts: details ? details.amounts : plainAmounts,
    details: details && {
      people: details.people,
      organizations: details.organizations,
      locations: details.locations,
      dates: details.dates,
    },
  };
}

/** The AI's document type with its confidence; null before enrichment, while it waits for review, and once rejected. */
function presentDocumentType(d: Document) {
  return d.aiEnrichment?.documentType ?? null;
}

/** AI results waiting for a person's decision (the AI review queue), or null. */
function presentReview(d: Document) {
  const review = d.aiEnrichment?.review;
  return review ? { task_id: review.taskId, pending: review.pending } : null;
}

/** A document in a list; `entities` only for the API-key variant (spec, Document). */
export function presentDocumentListItem(
  d: Document,
  tags: string[],
  options: { withEntities: boolean; progress?: DocumentProgress | null },
) {
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
    ai_document_type: presentDocumentType(d),
    tags,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
    processing_progress: presentProgress(d, options.progress),
    ...(options.withEntities ? { entities: presentEntities(d) } : {}),
  };
}

/** A document with its detail fields (single get). `apiBase` is e.g. `https://host/api/v1`. */
export function presentDocumentDetail(
  d: Document,
  tags: string[],
  apiBase: string,
  progress?: DocumentProgress | null,
) {
  return {
    ...presentDocumentListItem(d, tags, { withEntities: false, progress }),
    storage_path: d.storageKey,
    thumbnail_url: `${apiBase}/documents/${d.id}/thumbnail`,
    ai_thumbnail_url: null,
    entities: presentEntities(d),
    ai_summary_confidence: d.aiEnrichment?.summaryConfidence ?? null,
    ai_fields: d.aiEnrichment?.fields ?? {},
    ai_tag_details: d.aiEnrichment?.tags ?? d.aiTags.map((name) => ({ name, confidence: null, source: 'extracted' })),
    ai_review: presentReview(d),
    metadata: d.metadata,
    processing_error: d.processingError,
  };
}

/** The answer to a single upload. */
export function presentUpload(d: Document) {
  return { id: d.id, filename: d.filename, status: d.status, ai_status: d.aiStatus, created_at: iso(d.createdAt) };
}

/** The answer to a single upload: `duplicate_of` when a document the caller can see has the same content. */
export function presentSingleUpload(u: SingleUpload) {
  return { ...presentUpload(u.document), ...(u.duplicateOf !== null ? { duplicate_of: u.duplicateOf } : {}) };
}

/** The answer to a batch upload: the documents made and the files refused (and skipped, with `on_duplicate=skip`). */
export function presentBatchUpload(b: BatchUpload) {
  return {
    collection_id: b.collectionId,
    batch_job_id: b.batchJobId,
    documents: b.documents.map((d) => {
      const duplicate = b.duplicateOf.get(d.id);
      return {
        id: d.id,
        filename: d.filename,
        status: d.status,
        ai_status: d.aiStatus,
        ...(duplicate ? { duplicate_of: duplicate } : {}),
      };
    }),
    rejected: b.rejected,
    ...(b.skipped ? { skipped: b.skipped.map((s) => ({ filename: s.filename, duplicate_of: s.duplicateOf })) } : {}),
  };
}

/** The answer to a reprocess request (202). */
export function presentReprocess(d: Document) {
  return { message: 'Reprocessing started', document_id: d.id, status: d.status, ai_status: d.aiStatus };
}
