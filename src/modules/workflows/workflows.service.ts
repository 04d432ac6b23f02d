import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { principalOf } from '../../domain/principal.ts';
import { requireCreate } from '../../domain/roles.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { ValidationResult, WorkflowDefinition, WorkflowNode } from './engine/types.ts';
import { validateWorkflow } from './engine/validate.ts';
import { ownerFilter, reaches } from './ownership.ts';
import type { ScheduleTrigger } from './triggers/schedule-trigger.ts';
import { definitionOf, workflowNotFound } from './workflow-definition.ts';
import type { Workflow, WorkflowsRepository } from './workflows.repository.ts';

/** Team limits of contract §10; Enterprise is unlimited. */
const LIMITS: Record<string, { workflows: number; nodes: number } | null> = {
  team: { workflows: 50, nodes: 100 },
  enterprise: null,
};

export interface WorkflowInput {
  name?: string;
  description?: string;
  /** On create only `draft` is accepted: it saves the definition without validating it. */
  status?: 'draft' | 'active' | 'paused';
  trigger?: WorkflowDefinition['trigger'];
  nodes?: WorkflowNode[];
  error_handling?: WorkflowDefinition['error_handling'];
}

export interface WorkflowStatistics {
  totalExecutions: number;
  successful: number;
  failed: number;
  inProgress: number;
  avgDurationSeconds: number;
}

/** Workflow definitions: create, read, update with versions and the lifecycle, validate, delete. */
export class WorkflowsService {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #repo: WorkflowsRepository;
  readonly #schedule: ScheduleTrigger;

  constructor(deps: { database: Database; clock: Clock; workflows: WorkflowsRepository; schedule: ScheduleTrigger }) {
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#repo = deps.workflows;
    this.#schedule = deps.schedule;
  }

  async create(auth: AuthContext, input: WorkflowInput & { name: string }): Promise<Workflow> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflows');
    const tenantId = auth.tenant.id;
    const limits = LIMITS[auth.tenant.tier] ?? null;
    checkNodeLimit(auth, limits, input.nodes ?? []);
    const trigger = input.trigger ?? { type: 'manual' };
    const nodes = input.nodes ?? [];
    // Only an explicit `status: draft` keeps an unfinished definition; anything else must be runnable.
    if (input.status !== 'draft') requireValid({ trigger, nodes });
    const now = this.#clock.now();
    return this.#database.db.transaction().execute(async (trx) => {
      if (limits && (await this.#repo.countWorkflows(trx, tenantId)) >= limits.workflows) {
        throw errors.tierLimit(`The ${auth.tenant.tier} tier allows at most ${limits.workflows} workflows`, {
          current_tier: auth.tenant.tier,
          limit: limits.workflows,
        });
      }
      const workflow: Workflow = {
        id: newId(now),
        tenantId,
        name: input.name,
        description: input.description ?? '',
        status: 'draft',
        version: 1,
        trigger,
        nodes,
        errorHandling: input.error_handling ?? { on_failure: 'fail' },
        lastExecutionAt: null,
        nextRunAt: null,
        owner: principalOf(auth),
        createdAt: now,
        updatedAt: now,
      };
      await this.#repo.insertWorkflow(trx, workflow);
      await this.#repo.insertVersion(trx, tenantId, workflow.id, 1, definitionOf(workflow), now);
      return workflow;
    });
  }

  /** The workflows the caller reaches (ownership.ts): the tenant's for administrators, their own for members, none for viewers. */
  async list(auth: AuthContext, o: { status?: string; limit: number; offset: number }) {
    requireFeature(auth, 'workflows');
    const owner = ownerFilter(auth);
    if (owner === null) return { rows: [], total: 0 };
    return this.#repo.listWorkflows(this.#database.db, auth.tenant.id, {
      ...o,
      ...(owner !== undefined ? { owner } : {}),
    });
  }

  /** A workflow the caller reaches, else 404 `WORKFLOW_NOT_FOUND` (another member's answers as a missing one). */
  async #find(db: Executor, auth: AuthContext, id: string): Promise<Workflow> {
    const workflow = await this.#repo.findWorkflow(db, auth.tenant.id, id);
    if (!workflow || !reaches(auth, workflow.owner)) throw workflowNotFound();
    return workflow;
  }

  async get(auth: AuthContext, id: string): Promise<{ workflow: Workflow; statistics: WorkflowStatistics }> {
    requireFeature(auth, 'workflows');
    const workflow = await this.#find(this.#database.db, auth, id);
    const stats = await this.#repo.executionStats(this.#database.db, auth.tenant.id, id);
    const count = (s: string) => stats.find((r) => r.status === s)?.n ?? 0;
    const finished = stats.filter((r) => r.status === 'completed' || r.status === 'failed');
    const finishedCount = finished.reduce((a, r) => a + r.n, 0);
    const duration = finished.reduce((a, r) => a + r.duration, 0);
    return {
      workflow,
      statistics: {
        totalExecutions: stats.reduce((a, r) => a + r.n, 0),
        successful: count('completed'),
        failed: count('failed'),
        inProgress: count('running') + count('paused'),
        avgDurationSeconds: finishedCount === 0 ? 0 : Math.round(duration / finishedCount / 1000),
      },
    };
  }

  /** Contract §10: a change of nodes, trigger or error_handling makes a new version; `status` moves the lifecycle. */
  async update(auth: AuthContext, id: string, input: WorkflowInput): Promise<Workflow> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflows');
    checkNodeLimit(auth, LIMITS[auth.tenant.tier] ?? null, input.nodes ?? []);
    const tenantId = auth.tenant.id;
    const now = this.#clock.now();
    return this.#database.db.transaction().execute(async (trx) => {
      const current = await this.#find(trx, auth, id);
      const patch: Partial<Workflow> = { updatedAt: now };
      if (input.name !== undefined) patch.name = input.name;
      if (input.description !== undefined) patch.description = input.description;
      // A new version only when the definition really changes (a PUT of the same nodes is not one).
      const differs = <T>(given: T | undefined, stored: T) =>
        given !== undefined && JSON.stringify(given) !== JSON.stringify(stored);
      if (differs(input.nodes, current.nodes)) patch.nodes = input.nodes;
      if (differs(input.trigger, current.trigger)) patch.trigger = input.trigger;
      if (differs(input.error_handling, current.errorHandling)) patch.errorHandling = input.error_handling;
      const changed = patch.nodes !== undefined || patch.trigger !== undefined || patch.errorHandling !== undefined;
      if (changed) patch.version = current.version + 1;
      const definition = definitionOf({ ...current, ...patch });
      const activating = input.status === 'active' && current.status !== 'active';
      // A changed definition must validate unless the caller explicitly keeps (or makes) it a draft.
      if (activating || (changed && input.status !== 'draft')) requireValid(definition);
      if (input.status !== undefined && input.status !== current.status) {
        if (input.status === 'paused' && current.status !== 'active') {
          throw errors.conflict(`A ${current.status} workflow cannot be paused; only an active one`);
        }
        patch.status = input.status;
      }
      const next: Workflow = { ...current, ...patch };
      await this.#repo.updateWorkflow(trx, tenantId, id, patch);
      if (changed) await this.#repo.insertVersion(trx, tenantId, id, next.version, definition, now);
      // A schedule trigger ticks only while active; a new cron re-arms it.
      if (changed || next.status !== current.status) await this.#schedule.arm(trx, next, now);
      return next;
    });
  }

  /**
   * A tier change took workflows away (issue 18): every active workflow of the tenant becomes
   * `paused`, in the caller's transaction, kept as it is for an upgrade to resume. Returns how many.
   */
  async pauseAllActive(trx: Executor, tenantId: string): Promise<number> {
    const now = this.#clock.now();
    let paused = 0;
    for (;;) {
      const { rows } = await this.#repo.listWorkflows(trx, tenantId, { status: 'active', limit: 500, offset: 0 });
      for (const workflow of rows)
        await this.#repo.updateWorkflow(trx, tenantId, workflow.id, { status: 'paused', updatedAt: now });
      paused += rows.length;
      if (rows.length < 500) return paused;
    }
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflows');
    await this.#database.db.transaction().execute(async (trx) => {
      await this.#find(trx, auth, id);
      if ((await this.#repo.countActiveExecutions(trx, auth.tenant.id, id)) > 0) {
        throw errors.conflict('The workflow has running or paused executions; cancel them first');
      }
      await this.#repo.deleteWorkflow(trx, auth.tenant.id, id);
    });
  }

  async validate(auth: AuthContext, id: string): Promise<ValidationResult> {
    requireFeature(auth, 'workflows');
    const workflow = await this.#find(this.#database.db, auth, id);
    return validateWorkflow(definitionOf(workflow));
  }
}

/** 400 `INVALID_WORKFLOW` with every error (and the warnings), as `POST …/validate` reports them. */
function requireValid(definition: Pick<WorkflowDefinition, 'nodes' | 'trigger'>): void {
  const result = validateWorkflow(definition);
  if (result.errors.length > 0) throw errors.invalidWorkflow(result.errors, result.warnings, result.issues);
}

function checkNodeLimit(auth: AuthContext, limits: { nodes: number } | null, nodes: readonly unknown[]): void {
  if (limits && nodes.length > limits.nodes) {
    throw errors.tierLimit(`The ${auth.tenant.tier} tier allows at most ${limits.nodes} nodes per workflow`, {
      current_tier: auth.tenant.tier,
      limit: limits.nodes,
    });
  }
}
