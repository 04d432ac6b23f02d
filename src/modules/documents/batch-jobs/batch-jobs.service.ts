import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import { isTenantAdmin } from '../../../domain/roles.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import type { BatchDocument, BatchJob, BatchJobsRepository, Rejection } from './batch-jobs.repository.ts';

/** A batch upload's progress, derived from its documents as they are now. */
export interface BatchProgress {
  id: string;
  collectionId: string;
  status: 'processing' | 'completed' | 'completed_with_errors' | 'failed';
  total: number;
  completed: number;
  failed: number;
  documents: BatchDocument[];
  rejected: Rejection[];
  createdAt: number;
}

/** Progress of a batch upload, derived from its documents (docs/api-decisions.md §6). */
export class BatchJobsService {
  private readonly deps: { database: Database; batchJobs: BatchJobsRepository };
  constructor(deps: BatchJobsService['deps']) {
    this.deps = deps;
  }

  /** Visible to tenant administrators and to the user who uploaded the batch. */
  async get(auth: AuthContext, id: string): Promise<BatchProgress> {
    const { database, batchJobs } = this.deps;
    const job = await batchJobs.findById(database.db, auth.tenant.id, id);
    if (!job || (!isTenantAdmin(auth) && job.createdBy !== auth.userId)) throw errors.notFound('batch_job', id);
    return this.#progress(job);
  }

  /** The caller's batches (a tenant administrator's: all of the tenant's), newest first. */
  async list(
    auth: AuthContext,
    page: { limit: number; offset: number },
  ): Promise<{ rows: BatchProgress[]; total: number }> {
    const { database, batchJobs } = this.deps;
    const { rows, total } = await batchJobs.list(
      database.db,
      auth.tenant.id,
      isTenantAdmin(auth) ? null : auth.userId,
      page,
    );
    return { rows: await Promise.all(rows.map((job) => this.#progress(job))), total };
  }

  /** A batch's progress, derived from its documents as they are now. */
  async #progress(job: BatchJob): Promise<BatchProgress> {
    const documents = await this.deps.batchJobs.documents(this.deps.database.db, job.tenantId, job.collectionId);
    const completed = documents.filter((d) => d.status === 'completed').length;
    const failed = job.rejected.length + documents.filter((d) => d.status === 'failed').length;
    const pending = documents.filter((d) => d.status !== 'completed' && d.status !== 'failed').length;
    const status =
      pending > 0 ? 'processing' : failed === 0 ? 'completed' : completed === 0 ? 'failed' : 'completed_with_errors';
    return {
      id: job.id,
      collectionId: job.collectionId,
      status,
      total: job.total,
      completed,
      failed,
      documents,
      rejected: job.rejected,
      createdAt: job.createdAt,
    };
  }
}
