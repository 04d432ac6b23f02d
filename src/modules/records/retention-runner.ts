import { type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { RecurringTick, RunningJob } from '../../jobs/job-types.ts';
import { type Clock, iso } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { RetentionCandidate } from '../documents/index.ts';
import type { NewTask, Task, TaskAccess, TaskOutcome, TaskSource } from '../workflows/index.ts';
import { RECORDS_JOBS, type RetentionRunPayload } from './records.jobs.ts';
import type { RetentionRule, RetentionRulesRepository, RuleRun } from './retention-rules.repository.ts';
import { RETENTION_REVIEW_SOURCE, runKey } from './retention-rules.service.ts';

const DAY_MS = 86_400_000;
/** Documents handled per transaction of a run. */
const PAGE = 200;
/** Rules listed per query of the recurring tick. */
const TICK_PAGE = 500;
/** A review waits this long in the inbox, then expires (the document stays; the rule does not ask again). */
const REVIEW_DAYS = 30;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  events: EventLog;
  logger: Logger;
  rules: RetentionRulesRepository;
  library: ModuleServices['retentionLibrary'];
  guard: Pick<ModuleServices['legalHoldGuard'], 'heldDocuments'>;
  tasks: Pick<ModuleServices['humanTasks'], 'createFor'>;
}

/**
 * Runs retention rules in the worker (docs/records.md): the hourly tick starts a run of every rule;
 * a run pages through the documents of the rule's folder tree whose time is up, leaves those a
 * legal hold covers, and deletes the others or sends each to review once, writing its progress on
 * the rule after every page. As the inbox's `retention_review` source, it deletes a document when
 * its review is approved (409 `legal_hold` if a hold has covered it since), and keeps it otherwise.
 * Only owners, admins and API keys see or decide these tasks.
 */
export class RetentionRunner implements TaskSource {
  readonly #deps: Deps;
  readonly access: TaskAccess = {
    reaches: () => Promise.resolve(false),
    condition: () => () => sql<SqlBool>`1 = 0`,
  };

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  /** The recurring tick: one run job per rule (a rule whose run is still waiting or running is not doubled). */
  async tick(_job: RunningJob<RecurringTick>): Promise<void> {
    const { database, rules, jobs } = this.#deps;
    let after = '';
    for (;;) {
      const page = await rules.page(database.db, after, TICK_PAGE);
      for (const r of page)
        await jobs.enqueue(
          database.db,
          RECORDS_JOBS.runRule,
          { tenantId: r.tenantId, ruleId: r.id },
          { tenantId: r.tenantId, uniqueKey: runKey(r.id) },
        );
      if (page.length < TICK_PAGE) return;
      after = page.at(-1)!.id;
    }
  }

  /** One run of one rule. */
  async run(job: RunningJob<RetentionRunPayload>): Promise<void> {
    const { database, clock, rules, events } = this.#deps;
    const { tenantId, ruleId } = job.payload;
    const db = database.db;
    const rule = await rules.findById(db, tenantId, ruleId);
    if (!rule) return database.db.transaction().execute((trx) => job.completeIn(trx));
    const before = clock.now() - rule.keepDays * DAY_MS;
    await rules.startRun(db, tenantId, ruleId, clock.now());
    const run: Pick<RuleRun, 'examined' | 'deleted' | 'reviewRequested' | 'held'> = {
      examined: 0,
      deleted: 0,
      reviewRequested: 0,
      held: 0,
    };
    try {
      let after = '';
      for (;;) {
        job.signal.throwIfAborted();
        const page = await this.#deps.library.due(db, tenantId, rule.folderId, {
          basis: rule.basis,
          before,
          afterId: after,
          limit: PAGE,
        });
        if (page.length === 0) break;
        const ruleStays = await db.transaction().execute(async (trx) => {
          // A rule deleted meanwhile stops here.
          if (!(await rules.findById(trx, tenantId, ruleId))) return false;
          await this.#apply(trx, rule, page, run);
          await rules.progress(trx, tenantId, ruleId, run);
          return true;
        });
        if (!ruleStays) return database.db.transaction().execute((trx) => job.completeIn(trx));
        if (page.length < PAGE) break;
        after = page.at(-1)!.id;
      }
    } catch (error) {
      await rules.finishRun(
        db,
        tenantId,
        ruleId,
        'failed',
        clock.now(),
        error instanceof Error ? error.message : String(error),
      );
      throw error;
    }
    await db.transaction().execute(async (trx) => {
      await rules.finishRun(trx, tenantId, ruleId, 'completed', clock.now(), null);
      await events.record(trx, {
        tenantId,
        name: 'retention.run_completed',
        data: {
          rule_id: ruleId,
          folder_id: rule.folderId,
          action: rule.action,
          examined: run.examined,
          deleted: run.deleted,
          review_requested: run.reviewRequested,
          held: run.held,
        },
      });
      await job.completeIn(trx);
    });
  }

  /** One page: held documents are left alone; the others are deleted, or sent to review once. */
  async #apply(
    trx: Executor,
    rule: RetentionRule,
    page: RetentionCandidate[],
    run: Pick<RuleRun, 'examined' | 'deleted' | 'reviewRequested' | 'held'>,
  ): Promise<void> {
    const { rules, library, guard, tasks, events, clock } = this.#deps;
    const held = await guard.heldDocuments(
      trx,
      rule.tenantId,
      page.map((d) => d.id),
    );
    const free = page.filter((d) => !held.has(d.id));
    run.examined += page.length;
    run.held += held.size;
    if (rule.action === 'delete') {
      await library.remove(
        trx,
        rule.tenantId,
        free.map((d) => d.id),
      );
      for (const d of free) {
        await events.record(trx, {
          tenantId: rule.tenantId,
          name: 'retention.document_deleted',
          data: { rule_id: rule.id, document_id: d.id, filename: d.filename, folder_id: d.folderId },
        });
      }
      run.deleted += free.length;
      return;
    }
    const asked = await rules.reviewed(
      trx,
      rule.tenantId,
      rule.id,
      free.map((d) => d.id),
    );
    const now = clock.now();
    for (const d of free.filter((doc) => !asked.has(doc.id))) {
      const task = await tasks.createFor(
        trx,
        { tenantId: rule.tenantId, source: RETENTION_REVIEW_SOURCE, sourceRef: d.id, label: 'Retention review' },
        reviewTask(rule, d, now),
      );
      await rules.insertReview(trx, {
        tenantId: rule.tenantId,
        ruleId: rule.id,
        documentId: d.id,
        taskId: task.id,
        at: now,
      });
      await events.record(trx, {
        tenantId: rule.tenantId,
        name: 'retention.review_requested',
        data: { rule_id: rule.id, document_id: d.id, filename: d.filename, task_id: task.id },
      });
      run.reviewRequested++;
    }
  }

  /** A review decided: approved deletes the document (refused with 409 `legal_hold` under a hold); rejected, modified or expired keeps it. */
  async settle(trx: Executor, task: Task, outcome: TaskOutcome): Promise<void> {
    const { rules, library, events } = this.#deps;
    const review = await rules.findReviewByTask(trx, task.tenantId, task.id);
    if (review?.status !== 'pending') return;
    if (outcome.decision !== 'approved') {
      await rules.setReviewStatus(trx, task.tenantId, task.id, outcome.decision === 'expired' ? 'expired' : 'kept');
      return;
    }
    const doc = await library.find(trx, task.tenantId, review.documentId);
    if (!doc) return;
    // The guard refuses (409 legal_hold) when a hold covers the document now: the task stays pending.
    await library.remove(trx, task.tenantId, [doc.id]);
    await events.record(trx, {
      tenantId: task.tenantId,
      name: 'retention.document_deleted',
      data: { rule_id: review.ruleId, document_id: doc.id, filename: doc.filename, folder_id: doc.folderId },
    });
  }
}

/** The review task of one document whose time is up. */
function reviewTask(rule: RetentionRule, doc: RetentionCandidate, now: number): NewTask {
  const basis = rule.basis === 'created' ? 'its upload' : 'its current version';
  return {
    taskType: 'approval',
    title: `Retention: delete ${doc.filename}?`,
    description: `A retention rule keeps documents of this folder for ${rule.keepDays} days from ${basis}, and that time is up. Approve to delete the document permanently; reject to keep it (the rule will not ask again).`,
    context: {
      document_id: doc.id,
      filename: doc.filename,
      folder_id: doc.folderId,
      rule_id: rule.id,
      keep_days: rule.keepDays,
      basis: rule.basis,
      due_since: iso(doc.since + rule.keepDays * DAY_MS),
    },
    data: {},
    assigneeType: 'role',
    assigneeValue: 'admin',
    editableFields: null,
    onTimeout: 'fail',
    escalateTo: null,
    dueAt: now + REVIEW_DAYS * DAY_MS,
    escalationAt: now + Math.round(REVIEW_DAYS * 0.75) * DAY_MS,
  };
}
