import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { RetentionBasis } from '../documents/index.ts';
import type { RetentionRulesTable } from './records.tables.ts';
import './records.tables.ts';

export type RetentionAction = 'delete' | 'review';
export type RunStatus = 'idle' | 'running' | 'completed' | 'failed';

/** What the last (or current) run of a rule did: its progress while it runs. */
export interface RuleRun {
  status: RunStatus;
  startedAt: number | null;
  finishedAt: number | null;
  examined: number;
  deleted: number;
  reviewRequested: number;
  held: number;
  error: string | null;
}

/** A retention rule as services see it. */
export interface RetentionRule {
  id: string;
  tenantId: string;
  folderId: string;
  keepDays: number;
  basis: RetentionBasis;
  action: RetentionAction;
  createdBy: string | null;
  createdAt: number;
  run: RuleRun;
}

export type ReviewStatus = 'pending' | 'deleted' | 'kept' | 'held' | 'expired';

function toRule(row: Selectable<RetentionRulesTable>): RetentionRule {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: row.id,
    tenantId: row.tenant_id,
    folderId: row.folder_id,
    keepDays: Number(row.keep_days),
    basis: row.basis as RetentionBasis,
    action: row.action as RetentionAction,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    run: {
      status: row.run_status as RunStatus,
      startedAt: n(row.run_started_at),
      finishedAt: n(row.run_finished_at),
      examined: Number(row.run_examined),
      deleted: Number(row.run_deleted),
      reviewRequested: Number(row.run_review_requested),
      held: Number(row.run_held),
      error: row.run_error,
    },
  };
}

/** SQL for retention rules and the reviews they asked for; every query takes the tenant (the tick's listing excepted). */
export class RetentionRulesRepository {
  async insert(db: Executor, rule: RetentionRule): Promise<void> {
    await db
      .insertInto('retention_rules')
      .values({
        id: rule.id,
        tenant_id: rule.tenantId,
        folder_id: rule.folderId,
        keep_days: rule.keepDays,
        basis: rule.basis,
        action: rule.action,
        created_by: rule.createdBy,
        created_at: rule.createdAt,
        run_status: rule.run.status,
        run_started_at: null,
        run_finished_at: null,
        run_examined: 0,
        run_deleted: 0,
        run_review_requested: 0,
        run_held: 0,
        run_error: null,
      })
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<RetentionRule | null> {
    const row = await db
      .selectFrom('retention_rules')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRule(row) : null;
  }

  /** Newest first. */
  async list(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: RetentionRule[]; total: number }> {
    const base = db.selectFrom('retention_rules').where('tenant_id', '=', tenantId);
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
    return { rows: rows.map(toRule), total: Number(count.n) };
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const result = await db
      .deleteFrom('retention_rules')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Every rule of every tenant, in id order after `afterId` (the recurring tick starts a run of each). */
  async page(db: Executor, afterId: string, limit: number): Promise<{ id: string; tenantId: string }[]> {
    const rows = await db
      .selectFrom('retention_rules')
      .select(['id', 'tenant_id'])
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id }));
  }

  /** A run starts: counters back to zero. */
  async startRun(db: Executor, tenantId: string, id: string, at: number): Promise<void> {
    await db
      .updateTable('retention_rules')
      .set({
        run_status: 'running',
        run_started_at: at,
        run_finished_at: null,
        run_examined: 0,
        run_deleted: 0,
        run_review_requested: 0,
        run_held: 0,
        run_error: null,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** The run's counters so far (written after each page, in that page's transaction). */
  async progress(
    db: Executor,
    tenantId: string,
    id: string,
    run: Pick<RuleRun, 'examined' | 'deleted' | 'reviewRequested' | 'held'>,
  ): Promise<void> {
    await db
      .updateTable('retention_rules')
      .set({
        run_examined: run.examined,
        run_deleted: run.deleted,
        run_review_requested: run.reviewRequested,
        run_held: run.held,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async finishRun(
    db: Executor,
    tenantId: string,
    id: string,
    status: 'completed' | 'failed',
    at: number,
    error: string | null,
  ): Promise<void> {
    await db
      .updateTable('retention_rules')
      .set({ run_status: status, run_finished_at: at, run_error: error })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Documents of these that the rule already sent to review (asked once per rule and document). */
  async reviewed(db: Executor, tenantId: string, ruleId: string, documentIds: string[]): Promise<Set<string>> {
    if (documentIds.length === 0) return new Set();
    const rows = await db
      .selectFrom('retention_reviews')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .where('rule_id', '=', ruleId)
      .where('document_id', 'in', documentIds)
      .execute();
    return new Set(rows.map((r) => r.document_id));
  }

  async insertReview(
    db: Executor,
    review: { tenantId: string; ruleId: string; documentId: string; taskId: string; at: number },
  ): Promise<void> {
    await db
      .insertInto('retention_reviews')
      .values({
        tenant_id: review.tenantId,
        rule_id: review.ruleId,
        document_id: review.documentId,
        task_id: review.taskId,
        status: 'pending',
        created_at: review.at,
      })
      .execute();
  }

  /** The review tasks of a rule still waiting in the inbox. */
  async pendingReviewTasks(db: Executor, tenantId: string, ruleId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('retention_reviews')
      .select('task_id')
      .where('tenant_id', '=', tenantId)
      .where('rule_id', '=', ruleId)
      .where('status', '=', 'pending')
      .execute();
    return rows.map((r) => r.task_id);
  }

  async findReviewByTask(
    db: Executor,
    tenantId: string,
    taskId: string,
  ): Promise<{ ruleId: string; documentId: string; status: ReviewStatus } | null> {
    const row = await db
      .selectFrom('retention_reviews')
      .select(['rule_id', 'document_id', 'status'])
      .where('tenant_id', '=', tenantId)
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return row ? { ruleId: row.rule_id, documentId: row.document_id, status: row.status as ReviewStatus } : null;
  }

  async setReviewStatus(db: Executor, tenantId: string, taskId: string, status: ReviewStatus): Promise<void> {
    await db
      .updateTable('retention_reviews')
      .set({ status })
      .where('tenant_id', '=', tenantId)
      .where('task_id', '=', taskId)
      .execute();
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('retention_reviews').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('retention_rules').where('tenant_id', '=', tenantId).execute();
  }
}
