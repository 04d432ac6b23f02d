import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import { parseJson } from '../../../lib/json.ts';
import { isTenantAdmin } from '../../../domain/roles.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import type { BatchJobRow, BatchJobsRepository } from './batch-jobs.repository.ts';

export interface BatchJobView {
  id: string;
  collection_id: string;
  status: 'processing' | 'completed' | 'completed_with_errors' | 'failed';
  total: number;
  completed: number;
  failed: number;
  documents: { id: string; filename: string; status: string; ai_status: string }[];
  rejected: { filename: string; error: string; code: string; message: string }[];
  created_at: number;
}

/** Progress of a batch upload, derived from its documents (docs/api-decisions.md §6). */
export class BatchJobsService {
  private readonly deps: { database: Database; batchJobs: BatchJobsRepository };
  constructor(deps: BatchJobsService['deps']) {
    this.deps = deps;
  }

  /** Visible to tenant administrators and to the user who uploaded the batch. */
  async get(auth: AuthContext, id: string): Promise<BatchJobView> {
    const { database, batchJobs } = this.deps;
    const row = await batchJobs.findById(database.db, auth.tenant.id, id);
    if (!row || (!isTenantAdmin(auth) && row.created_by !== auth.userId)) throw errors.notFound('batch_job', id);
    return this.#view(row);
  }

  /** The caller's batches (a tenant administrator's: all of the tenant's), newest first. */
  async list(auth: AuthContext, page: { limit: number; offset: number }): Promise<{ rows: BatchJobView[]; total: number }> {
    const { database, batchJobs } = this.deps;
    const { rows, total } = await batchJobs.list(database.db, auth.tenant.id, isTenantAdmin(auth) ? null : auth.userId, page);
    return { rows: await Promise.all(rows.map((row) => this.#view(row))), total };
  }

  /** A batch's progress, derived from its documents as they are now. */
  async #view(row: BatchJobRow): Promise<BatchJobView> {
    const documents = await this.deps.batchJobs.documents(this.deps.database.db, row.tenant_id, row.collection_id);
    const rejected = parseJson<BatchJobView['rejected']>(row.rejected, []);
    const completed = documents.filter((d) => d.status === 'completed').length;
    const failed = rejected.length + documents.filter((d) => d.status === 'failed').length;
    const pending = documents.filter((d) => d.status !== 'completed' && d.status !== 'failed').length;
    const status = pending > 0 ? 'processing' : failed === 0 ? 'completed' : completed === 0 ? 'failed' : 'completed_with_errors';
    return { id: row.id, collection_id: row.collection_id, status, total: Number(row.total), completed, failed, documents, rejected, created_at: row.created_at };
  }
}
