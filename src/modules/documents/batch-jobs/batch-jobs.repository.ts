import type { Selectable } from 'kysely';
import type { BatchJobsTable } from '../documents.tables.ts';
import type { Executor } from '../../../db/executor.ts';
import { parseJson } from '../../../lib/json.ts';

/** A file of a batch refused at upload, with the error it got. */
export interface Rejection {
  filename: string;
  error: string;
  code: string;
  message: string;
}

/** A batch upload: its collection of documents and the files refused at upload. */
export interface BatchJob {
  id: string;
  tenantId: string;
  collectionId: string;
  createdBy: string | null;
  /** Files in the batch, accepted and rejected. */
  total: number;
  rejected: Rejection[];
  createdAt: number;
}

/** A document of a batch, as its progress shows it. */
export interface BatchDocument {
  id: string;
  filename: string;
  status: string;
  aiStatus: string;
}

export function toBatchJob(row: Selectable<BatchJobsTable>): BatchJob {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    collectionId: row.collection_id,
    createdBy: row.created_by,
    total: Number(row.total),
    rejected: parseJson<Rejection[]>(row.rejected, []),
    createdAt: row.created_at,
  };
}

/** SQL for batch upload jobs; every query takes the tenant. */
export class BatchJobsRepository {
  async insert(db: Executor, job: BatchJob): Promise<void> {
    await db
      .insertInto('batch_jobs')
      .values({
        id: job.id,
        tenant_id: job.tenantId,
        collection_id: job.collectionId,
        created_by: job.createdBy,
        total: job.total,
        rejected: JSON.stringify(job.rejected),
        created_at: job.createdAt,
      })
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<BatchJob | null> {
    const row = await db
      .selectFrom('batch_jobs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toBatchJob(row) : null;
  }

  /** A page of the tenant's batches, newest first; only those of `createdBy` when given. */
  async list(
    db: Executor,
    tenantId: string,
    createdBy: string | null,
    page: { limit: number; offset: number },
  ): Promise<{ rows: BatchJob[]; total: number }> {
    let base = db.selectFrom('batch_jobs').where('tenant_id', '=', tenantId);
    if (createdBy !== null) base = base.where('created_by', '=', createdBy);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toBatchJob), total: Number(count.n) };
  }

  /** The documents of the batch's collection that still exist, in upload order. */
  async documents(db: Executor, tenantId: string, collectionId: string): Promise<BatchDocument[]> {
    const rows = await db
      .selectFrom('documents')
      .select(['id', 'filename', 'status', 'ai_status'])
      .where('tenant_id', '=', tenantId)
      .where('collection_id', '=', collectionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: r.id, filename: r.filename, status: r.status, aiStatus: r.ai_status }));
  }
}
