import { iso } from '../../lib/clock.ts';
import type { LegalHold } from './legal-holds.repository.ts';
import type { RetentionRule } from './retention-rules.repository.ts';

/** A legal hold as the API shows it. */
export function presentHold(h: LegalHold) {
  return {
    id: h.id,
    name: h.name,
    status: h.status,
    document_ids: h.documentIds,
    folder_ids: h.folderIds,
    created_by: h.createdBy,
    created_at: iso(h.createdAt),
    released_by: h.releasedBy,
    released_at: iso(h.releasedAt),
  };
}

/** A retention rule as the API shows it. */
export function presentRule(r: RetentionRule) {
  return {
    id: r.id,
    folder_id: r.folderId,
    keep_days: r.keepDays,
    basis: r.basis,
    action: r.action,
    created_by: r.createdBy,
    created_at: iso(r.createdAt),
    last_run: {
      status: r.run.status,
      started_at: iso(r.run.startedAt),
      finished_at: iso(r.run.finishedAt),
      examined: r.run.examined,
      deleted: r.run.deleted,
      review_requested: r.run.reviewRequested,
      held: r.run.held,
      error: r.run.error,
    },
  };
}
