import type { Executor } from '../../db/executor.ts';
import { parseJson } from '../../lib/json.ts';
import { type Confirmations, NO_CONFIRMATIONS } from './review-items.ts';
import './ai-review.tables.ts';

export interface DocumentReview {
  confirmations: Confirmations;
  taskId: string | null;
}

/** SQL for the review state of documents; every query takes the tenant. */
export class AiReviewRepository {
  async find(db: Executor, tenantId: string, documentId: string): Promise<DocumentReview> {
    const row = await db
      .selectFrom('document_ai_reviews')
      .select(['confirmed', 'task_id'])
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .executeTakeFirst();
    if (!row) return { confirmations: NO_CONFIRMATIONS, taskId: null };
    const stored = parseJson<Partial<Confirmations>>(row.confirmed, {});
    return {
      confirmations: { ...NO_CONFIRMATIONS, ...stored, tags: { ...NO_CONFIRMATIONS.tags, ...stored.tags } },
      taskId: row.task_id,
    };
  }

  /** Sets the pending task only: confirmations another transaction wrote meanwhile are kept. */
  async setTask(db: Executor, tenantId: string, documentId: string, taskId: string | null, at: number): Promise<void> {
    await db
      .insertInto('document_ai_reviews')
      .values({
        tenant_id: tenantId,
        document_id: documentId,
        confirmed: JSON.stringify(NO_CONFIRMATIONS),
        task_id: taskId,
        updated_at: at,
      })
      .onConflict((oc) => oc.column('document_id').doUpdateSet({ task_id: taskId, updated_at: at }))
      .execute();
  }

  /** Stores the confirmations and ends the pending task (its decision is what they record). */
  async confirm(
    db: Executor,
    tenantId: string,
    documentId: string,
    confirmations: Confirmations,
    at: number,
  ): Promise<void> {
    const confirmed = JSON.stringify(confirmations);
    await db
      .insertInto('document_ai_reviews')
      .values({ tenant_id: tenantId, document_id: documentId, confirmed, task_id: null, updated_at: at })
      .onConflict((oc) => oc.column('document_id').doUpdateSet({ confirmed, task_id: null, updated_at: at }))
      .execute();
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('document_ai_reviews').where('tenant_id', '=', tenantId).execute();
  }
}
