import { iso } from '../../../lib/clock.ts';
import type { BatchProgress } from './batch-jobs.service.ts';

/** A batch upload's progress as the API shows it. */
export function presentBatchJob(p: BatchProgress) {
  return {
    id: p.id,
    collection_id: p.collectionId,
    status: p.status,
    total: p.total,
    completed: p.completed,
    failed: p.failed,
    documents: p.documents.map((d) => ({ id: d.id, filename: d.filename, status: d.status, ai_status: d.aiStatus })),
    rejected: p.rejected,
    created_at: iso(p.createdAt),
  };
}
