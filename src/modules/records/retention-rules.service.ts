import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { requireTenantAdmin } from '../../domain/roles.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { RetentionBasis } from '../documents/index.ts';
import { RECORDS_JOBS } from './records.jobs.ts';
import type { RetentionAction, RetentionRule, RetentionRulesRepository } from './retention-rules.repository.ts';

/** The name retention reviews are registered under in the task inbox. */
export const RETENTION_REVIEW_SOURCE = 'retention_review';

/** keep_days above this (about 275 years) is refused: a date that far is no retention rule. */
export const MAX_KEEP_DAYS = 100_000;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  rules: RetentionRulesRepository;
  folders: Pick<ModuleServices['folders'], 'get'>;
  tasks: Pick<ModuleServices['humanTasks'], 'withdraw'>;
}

const ADMINS_ONLY = 'Only owners and admins may manage retention rules';

/** The unique key of a rule's run job: one run of a rule at a time, however often it is asked for. */
export const runKey = (ruleId: string) => `${RECORDS_JOBS.runRule}:${ruleId}`;

/**
 * Retention rules (docs/records.md): for a folder and everything below it, documents older than
 * `keep_days` (counted from their upload or their current version) are deleted or sent to review.
 * Rules run in the worker (`records.jobs.ts`); owners and admins manage them.
 */
export class RetentionRulesService {
  readonly #deps: Deps;

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async create(
    auth: AuthContext,
    input: { folderId: string; keepDays: number; basis: RetentionBasis; action: RetentionAction },
  ): Promise<RetentionRule> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    const { database, clock, rules, folders } = this.#deps;
    if (!Number.isInteger(input.keepDays) || input.keepDays < 1 || input.keepDays > MAX_KEEP_DAYS)
      throw errors.field('keep_days', `must be a whole number of days from 1 to ${MAX_KEEP_DAYS}`);
    await folders.get(auth, input.folderId);
    const now = clock.now();
    const rule: RetentionRule = {
      id: newId(now),
      tenantId: auth.tenant.id,
      folderId: input.folderId,
      keepDays: input.keepDays,
      basis: input.basis,
      action: input.action,
      createdBy: auth.userId,
      createdAt: now,
      run: {
        status: 'idle',
        startedAt: null,
        finishedAt: null,
        examined: 0,
        deleted: 0,
        reviewRequested: 0,
        held: 0,
        error: null,
      },
    };
    await rules.insert(database.db, rule);
    return rule;
  }

  async list(
    auth: AuthContext,
    page: { limit: number; offset: number },
  ): Promise<{ rows: RetentionRule[]; total: number }> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    return this.#deps.rules.list(this.#deps.database.db, auth.tenant.id, page);
  }

  async get(auth: AuthContext, id: string): Promise<RetentionRule> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    const rule = await this.#deps.rules.findById(this.#deps.database.db, auth.tenant.id, id);
    if (!rule) throw errors.notFound('retention_rule', id);
    return rule;
  }

  /** Removes the rule; a run in progress stops at its next page, and its pending review tasks leave the inbox. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    const { database, rules, tasks } = this.#deps;
    const tenantId = auth.tenant.id;
    await database.db.transaction().execute(async (trx) => {
      const pending = await rules.pendingReviewTasks(trx, tenantId, id);
      if (!(await rules.delete(trx, tenantId, id))) throw errors.notFound('retention_rule', id);
      await tasks.withdraw(trx, tenantId, RETENTION_REVIEW_SOURCE, pending);
    });
  }

  /** Starts a run now (the worker also runs every rule each hour); a run already waiting or running is not doubled. */
  async run(auth: AuthContext, id: string): Promise<RetentionRule> {
    const rule = await this.get(auth, id);
    await this.#deps.jobs.enqueue(
      this.#deps.database.db,
      RECORDS_JOBS.runRule,
      { tenantId: rule.tenantId, ruleId: rule.id },
      { tenantId: rule.tenantId, uniqueKey: runKey(rule.id) },
    );
    return rule;
  }
}
