import type { Executor } from '../../db/executor.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { type DeleteBlobsPayload, DOCUMENT_JOBS, thumbnailBlobKey } from './document-job-kinds.ts';
import { DocumentVersionsRepository } from './document-versions.repository.ts';
import type { DocumentsRepository, StoredBlob } from './documents.repository.ts';

const versions = new DocumentVersionsRepository();

const KEYS_PER_JOB = 200;

/**
 * Deletes document rows (their tags, shares and extracted text go with them) and, in the same
 * transaction, enqueues the removal of their blobs: a crash can leave bytes briefly without a row,
 * which the job then removes, but never a row without its bytes.
 */
export async function removeDocuments(
  trx: Executor,
  deps: { documents: DocumentsRepository; jobs: JobQueue },
  tenantId: string,
  docs: StoredBlob[],
): Promise<void> {
  if (docs.length === 0) return;
  // Their earlier versions' bytes go too (the rows go by cascade).
  const versionKeys = await versions.otherKeys(
    trx,
    tenantId,
    docs.map((d) => d.id),
  );
  await deps.documents.deleteMany(
    trx,
    tenantId,
    docs.map((d) => d.id),
  );
  const keys = [...docs.flatMap((d) => [d.storageKey, thumbnailBlobKey(tenantId, d.id)]), ...versionKeys];
  for (let i = 0; i < keys.length; i += KEYS_PER_JOB) {
    const payload: DeleteBlobsPayload = { keys: keys.slice(i, i + KEYS_PER_JOB) };
    await deps.jobs.enqueue(trx, DOCUMENT_JOBS.deleteBlobs, payload, { tenantId });
  }
}
