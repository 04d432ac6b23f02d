import { Readable } from 'node:stream';
import type { Database } from '../../db/database.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobDefinition } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import { parseJson } from '../../lib/json.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { extractPdfText, readTextContent } from './document-content.ts';
import { DOCUMENT_JOBS, type DeleteBlobsPayload, type DocumentJobPayload, documentBlobKey, thumbnailBlobKey } from './document-job-kinds.ts';
import type { DocumentsRepository } from './documents.repository.ts';
import { renderThumbnail } from './thumbnails.ts';

interface Deps {
  database: Database;
  events: EventLog;
  clock: Clock;
  blobs: BlobStore;
  documents: DocumentsRepository;
}

/**
 * The first, honest stage of processing: extract the text that can be extracted without the full
 * pipeline (plain text formats, and PDFs up to 64 MB), store it, and mark the document
 * `completed`. AI analysis is a later stage: `ai_status` stays `queued` (or `skipped`).
 */
export async function extractAndComplete(deps: Deps, payload: DocumentJobPayload): Promise<void> {
  const { database, clock, blobs, documents } = deps;
  const row = await documents.findById(database.db, payload.tenantId, payload.documentId);
  if (row?.status !== 'processing') return; // deleted meanwhile, or already done
  let extracted: { text: string; pages: number | null; info: { author?: string; title?: string } } | null = null;
  let failure: { stage: string; message: string } | null = null;
  try {
    const text = await readTextContent(blobs, row);
    if (text !== null) extracted = { text, pages: null, info: {} };
    else {
      const pdf = await extractPdfText(blobs, row);
      if (pdf) extracted = pdf;
    }
  } catch (error) {
    failure = { stage: 'extraction', message: error instanceof Error ? error.message : String(error) };
  }
  const now = clock.now();
  await database.db.transaction().execute(async (trx) => {
    const current = await documents.findById(trx, payload.tenantId, payload.documentId);
    if (current?.status !== 'processing') return;
    const metadata = parseJson<Record<string, unknown>>(current.metadata, {});
    if (extracted) {
      await documents.saveContent(trx, {
        document_id: current.id,
        tenant_id: current.tenant_id,
        content: extracted.text,
        pages: extracted.pages,
        created_at: now,
      });
      if (extracted.pages !== null) metadata['pages'] = extracted.pages;
      // The spec's metadata keys: `author` (and `title`) from the document's own information.
      if (extracted.info.author) metadata['author'] = extracted.info.author;
      if (extracted.info.title) metadata['title'] = extracted.info.title;
    }
    const status = failure ? 'failed' : 'completed';
    const aiStatus = failure && current.ai_status === 'queued' ? 'failed' : current.ai_status;
    await documents.update(trx, current.tenant_id, current.id, {
      status,
      ai_status: aiStatus,
      metadata: JSON.stringify(metadata),
      processing_error: failure ? JSON.stringify(failure) : null,
      updated_at: now,
    });
    await deps.events.record(trx, {
      tenantId: current.tenant_id,
      name: failure ? 'document.failed' : 'document.processed',
      at: now,
      data: failure
        ? { document_id: current.id, status, error: failure }
        : { document_id: current.id, status, ai_summary: current.ai_summary, ai_tags: parseJson<string[]>(current.ai_tags, []) },
    });
  });
}

/** Renders and stores the thumbnail; if the document was deleted meanwhile, removes it again. */
export async function storeThumbnail(deps: Deps, payload: DocumentJobPayload): Promise<void> {
  const { database, blobs, documents } = deps;
  const row = await documents.findById(database.db, payload.tenantId, payload.documentId);
  if (!row) return;
  const thumbnail = await renderThumbnail(blobs, row);
  const key = thumbnailBlobKey(row.tenant_id, row.id);
  await blobs.put(key, Readable.from([thumbnail.bytes]), { contentType: thumbnail.contentType });
  await documents.update(database.db, row.tenant_id, row.id, { thumbnail_key: key, thumbnail_type: thumbnail.contentType });
  if (!(await documents.findById(database.db, row.tenant_id, row.id))) await blobs.delete(key);
}

/** Deletes an upload's bytes when no document row references them (see DOCUMENT_JOBS.collectOrphan). */
export async function collectOrphan(deps: Deps, payload: DocumentJobPayload): Promise<void> {
  const row = await deps.documents.findById(deps.database.db, payload.tenantId, payload.documentId);
  if (row) return;
  await deps.blobs.delete(documentBlobKey(payload.tenantId, payload.documentId));
  await deps.blobs.delete(thumbnailBlobKey(payload.tenantId, payload.documentId));
}

/** The documents module's job catalogue. */
export function documentJobDefinitions(deps: Deps): JobDefinition[] {
  return [
    {
      kind: DOCUMENT_JOBS.process,
      handler: (job) => extractAndComplete(deps, job.payload as DocumentJobPayload),
      maxAttempts: 3,
      timeoutMs: 5 * 60_000,
    },
    {
      kind: DOCUMENT_JOBS.thumbnail,
      handler: (job) => storeThumbnail(deps, job.payload as DocumentJobPayload),
      maxAttempts: 3,
      concurrency: 2,
      timeoutMs: 2 * 60_000,
    },
    {
      kind: DOCUMENT_JOBS.deleteBlobs,
      handler: async (job) => {
        for (const key of (job.payload as DeleteBlobsPayload).keys) await deps.blobs.delete(key);
      },
      maxAttempts: 10,
      backoff: { baseMs: 5_000, maxMs: 3_600_000 },
    },
    {
      kind: DOCUMENT_JOBS.collectOrphan,
      handler: (job) => collectOrphan(deps, job.payload as DocumentJobPayload),
      maxAttempts: 10,
      backoff: { baseMs: 5_000, maxMs: 3_600_000 },
    },
  ];
}
