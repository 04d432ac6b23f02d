import type { Selectable } from 'kysely';
import type { BatchJobsTable } from '../../../db/schema.ts';
import type { Executor } from '../../../db/executor.ts';

export type BatchJobRow = Selectable<BatchJobsTable>;

/** SQL for batch upload jobs; every query takes the tenant. */
export class BatchJobsRepository {
  async insert(db: Executor, row: BatchJobRow): Promise<void> {
    await db.insertInto('batch_jobs').values(row).execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<BatchJobRow | null> {
    return (await db.selectFrom('batch_jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** A page of the tenant's batches, newest first; only those of `createdBy` when given. */
  async list(
    db: Executor,
    tenantId: string,
    createdBy: string | null,
    page: { limit: number; offset: number },
  ): Promise<{ rows: BatchJobRow[]; total: number }> {
    let base = db.selectFrom('batch_jobs').where('tenant_id', '=', tenantId);
    if (createdBy !== null) base = base.where('created_by', '=', createdBy);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** The documents of the batch's collection that still exist, in upload order. */
  async documents(db: Executor, tenantId: string, collectionId: string) {
    return db
      .selectFrom('documents')
      .select(['id', 'filename', 'status', 'ai_status'])
      .where('tenant_id', '=', tenantId)
      .where('collection_id', '=', collectionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
}
