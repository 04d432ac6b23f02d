import type { Executor } from '../../db/executor.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Document, StoredCause } from '../documents/index.ts';
import { PROCESSING_JOBS } from './processing.jobs.ts';

/**
 * Starts the pipeline of documents just stored or sent back (documents' `onStored` hook), in the
 * caller's transaction: one extraction job each. Fair share: they queue behind the tenant's own
 * backlog, not other tenants' (`fairSharePriority`), in the order given. A reprocess already
 * waiting is not doubled (its unique key).
 */
export async function startProcessing(
  jobs: JobQueue,
  trx: Executor,
  documents: readonly Document[],
  cause: StoredCause,
): Promise<void> {
  const tenantId = documents[0]!.tenantId;
  const first = await jobs.fairSharePriority(trx, PROCESSING_JOBS.extract, tenantId);
  await jobs.enqueueMany(
    trx,
    documents.map((document, i) => ({
      kind: PROCESSING_JOBS.extract,
      payload: { tenantId, documentId: document.id },
      options: {
        tenantId,
        priority: first + i,
        ...(cause === 'reprocess' ? { uniqueKey: `reprocess:${document.id}` } : {}),
      },
    })),
  );
}
