import type { Selectable } from 'kysely';
import type { BatchJobsTable } from '../../db/schema.ts';
import type { Executor } from '../../jobs/job-types.ts';

export type BatchJobRow = Selectable<BatchJobsTable>;

/** SQL for batch upload jobs; every query takes the tenant. */
export class BatchJobsRepository {
  async insert(db: Executor, row: BatchJobRow): Promise<void> {
    await db.insertInto('batch_jobs').values(row).execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<BatchJobRow | null> {
    return (await db.selectFrom('batch_jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
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
