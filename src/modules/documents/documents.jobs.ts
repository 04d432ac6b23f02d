import { Readable } from 'node:stream';
import type { Database } from '../../db/database.ts';
import type { DeclaredJobDefinition } from '../../jobs/job-types.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import {
  type DeleteBlobsPayload,
  DOCUMENT_JOBS,
  type DocumentJobPayload,
  documentBlobKey,
  thumbnailBlobKey,
} from './document-job-kinds.ts';
import { DocumentVersionsRepository } from './document-versions.repository.ts';
import type { DocumentsRepository } from './documents.repository.ts';

const versions = new DocumentVersionsRepository();

import { renderThumbnail } from './thumbnails.ts';

/** The documents module's job kinds and their payloads (see DOCUMENT_JOBS). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'documents.thumbnail': DocumentJobPayload;
    'documents.delete_blob': DeleteBlobsPayload;
    'documents.collect_orphan': DocumentJobPayload;
  }
}

interface Deps {
  database: Database;
  blobs: BlobStore;
  documents: DocumentsRepository;
}

/** Renders and stores the thumbnail; if the document was deleted meanwhile, removes it again. */
export async function storeThumbnail(deps: Deps, payload: DocumentJobPayload): Promise<void> {
  const { database, blobs, documents } = deps;
  const document = await documents.findById(database.db, payload.tenantId, payload.documentId);
  if (!document) return;
  const thumbnail = await renderThumbnail(blobs, document);
  const key = thumbnailBlobKey(document.tenantId, document.id);
  await blobs.put(key, Readable.from([thumbnail.bytes]), { contentType: thumbnail.contentType });
  await documents.update(database.db, document.tenantId, document.id, {
    thumbnailKey: key,
    thumbnailType: thumbnail.contentType,
  });
  if (!(await documents.findById(database.db, document.tenantId, document.id))) await blobs.delete(key);
}

/** Deletes an upload's bytes when no document row references them (see DOCUMENT_JOBS.collectOrphan). */
export async function collectOrphan(deps: Deps, payload: DocumentJobPayload): Promise<void> {
  const row = await deps.documents.findById(deps.database.db, payload.tenantId, payload.documentId);
  // A version upload stores its bytes under the version's id (docs/versions.md).
  if (row || (await versions.exists(deps.database.db, payload.tenantId, payload.documentId))) return;
  await deps.blobs.delete(documentBlobKey(payload.tenantId, payload.documentId));
  await deps.blobs.delete(thumbnailBlobKey(payload.tenantId, payload.documentId));
}

/** The documents module's job catalogue. */
export function documentJobDefinitions(deps: Deps): DeclaredJobDefinition[] {
  return [
    {
      kind: DOCUMENT_JOBS.thumbnail,
      handler: (job) => storeThumbnail(deps, job.payload),
      maxAttempts: 3,
      concurrency: 2,
      timeoutMs: 2 * 60_000,
    },
    {
      kind: DOCUMENT_JOBS.deleteBlobs,
      handler: async (job) => {
        for (const key of job.payload.keys) await deps.blobs.delete(key);
      },
      maxAttempts: 10,
      backoff: { baseMs: 5_000, maxMs: 3_600_000 },
    },
    {
      kind: DOCUMENT_JOBS.collectOrphan,
      handler: (job) => collectOrphan(deps, job.payload),
      maxAttempts: 10,
      backoff: { baseMs: 5_000, maxMs: 3_600_000 },
    },
  ];
}
