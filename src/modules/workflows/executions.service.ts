import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { principalOf } from '../../domain/principal.ts';
import { requireCreate } from '../../domain/roles.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import type { WorkflowDefinition } from './engine/types.ts';
import { validateWorkflow } from './engine/validate.ts';
import { type ExecutionEngine, TASK_HOLD_PREFIX } from './execution-engine.ts';
import type { ExecutionPriority } from './execution-priority.ts';
import { ownerFilter, reaches } from './ownership.ts';
import type { Execution, NodeRun, Workflow, WorkflowsRepository } from './workflows.repository.ts';
import { definitionOf, workflowNotFound } from './workflow-definition.ts';

export const executionNotFound = errors.executionNotFound;

/** The part of the workflows repository the execution use cases need. */
export type ExecutionRows = Pick<
  WorkflowsRepository,
  | 'findWorkflow'
  | 'findExecution'
  | 'listExecutions'
  | 'lockExecution'
  | 'log'
  | 'nodeRuns'
  | 'updateExecution'
  | 'updateNodeRun'
>;

/**
 * The execution use cases of the API: execute, list, get, pause, resume, cancel. Each is one
 * transaction over the execution row (locked on PostgreSQL; SQLite writers are serialised).
 */
export class ExecutionsService {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #engine: ExecutionEngine;
  readonly #workflows: ExecutionRows;
  readonly #jobs: JobQueue;

  constructor(deps: {
    database: Database;
    clock: Clock;
    engine: ExecutionEngine;
    /** The rows it reads and changes: workflows, executions, node runs, the execution log. */
    workflows: ExecutionRows;
    jobs: JobQueue;
  }) {
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#engine = deps.engine;
    this.#workflows = deps.workflows;
    this.#jobs = deps.jobs;
  }

  /**
   * Contract §10: `execute` on an active workflow, or a draft (a test run); a paused one is 409.
   * `priority` orders its steps' jobs. The execution runs as the caller, who owns it.
   */
  async execute(
    auth: AuthContext,
    workflowId: string,
    input: { triggerData: Record<string, unknown>; priority?: ExecutionPriority },
  ): Promise<Execution> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflow executions');
    return this.#database.db.transaction().execute(async (trx) => {
      const workflow = await this.#workflows.findWorkflow(trx, auth.tenant.id, workflowId);
      if (!workflow || !reaches(auth, workflow.owner)) throw workflowNotFound();
      if (workflow.status === 'paused')
        throw errors.conflict('The workflow is paused; activate it (or move it to draft) to execute it');
      checkRunnable(workflow);
      const triggerType = auth.via === 'api_key' ? 'api' : 'manual';
      const execution = await this.#engine.start(trx, {
        workflow,
        triggerType,
        triggerData: input.triggerData,
        principal: principalOf(auth),
        ...(input.priority ? { priority: input.priority } : {}),
      });
      return execution!;
    });
  }

  /**
   * Starts an execution for a trigger (document, schedule, webhook) inside the caller's
   * transaction, running as the workflow's owner; null when its key already fired.
   */
  async startFromTrigger(
    trx: Executor,
    workflow: Workflow,
    triggerType: string,
    triggerData: Record<string, unknown>,
    triggerKey: string,
  ): Promise<Execution | null> {
    checkRunnable(workflow);
    return this.#engine.start(trx, { workflow, triggerType, triggerData, triggerKey, principal: workflow.owner });
  }

  /**
   * Starts a workflow for another module (an import agent) inside the caller's transaction, by id:
   * 404 when it is gone, 409 when it is not active; null when `triggerKey` already started one.
   */
  async startById(
    trx: Executor,
    tenantId: string,
    workflowId: string,
    start: { triggerType: string; triggerData: Record<string, unknown>; triggerKey: string },
  ): Promise<Execution | null> {
    const workflow = await this.#workflows.findWorkflow(trx, tenantId, workflowId);
    if (!workflow) throw workflowNotFound();
    if (workflow.status !== 'active')
      throw errors.conflict(`Workflow "${workflow.name}" is ${workflow.status}; only an active workflow is started`, {
        status: workflow.status,
      });
    return this.startFromTrigger(trx, workflow, start.triggerType, start.triggerData, start.triggerKey);
  }

  /** The executions the caller reaches (ownership.ts): the tenant's for administrators, those running as them for members, none for viewers. */
  async list(auth: AuthContext, o: { workflowId?: string; status?: string; limit: number; offset: number }) {
    requireFeature(auth, 'workflows');
    const principal = ownerFilter(auth);
    if (principal === null) return { rows: [], total: 0 };
    return this.#workflows.listExecutions(this.#database.db, auth.tenant.id, {
      ...o,
      ...(principal !== undefined ? { principal } : {}),
    });
  }

  async get(
    auth: AuthContext,
    id: string,
  ): Promise<{ execution: Execution; runs: NodeRun[]; definition: WorkflowDefinition }> {
    requireFeature(auth, 'workflows');
    const db = this.#database.db;
    const execution = await this.#workflows.findExecution(db, auth.tenant.id, id);
    if (!execution || !reaches(auth, execution.principal)) throw executionNotFound();
    const runs = await this.#workflows.nodeRuns(db, auth.tenant.id, id);
    const definition = await this.#engine.definition(db, execution);
    return { execution, runs, definition };
  }

  /** Contract §10: only `running`; running nodes finish, no new node starts. */
  async pause(auth: AuthContext, id: string): Promise<Execution> {
    return this.#control(auth, id, async (trx, execution, now) => {
      if (execution.status !== 'running')
        throw errors.executionNotPausable(
          `The execution is ${execution.status}; only a running execution can be paused`,
        );
      const paused = { status: 'paused' as const, pausedReason: 'manual', pausedAt: now, updatedAt: now };
      const next = { ...execution, ...paused };
      await this.#workflows.updateExecution(trx, execution.tenantId, id, paused);
      await this.#engine.recordPaused(trx, next, now);
      return next;
    });
  }

  /** Contract §10: executions paused by `pause` or by `on_failure: pause`; `modified_data` merges into the trigger data. */
  async resume(auth: AuthContext, id: string, modifiedData?: Record<string, unknown>): Promise<Execution> {
    return this.#control(auth, id, async (trx, execution, now) => {
      if (
        execution.status !== 'paused' ||
        (execution.pausedReason !== 'manual' && execution.pausedReason !== 'node_failed')
      ) {
        throw errors.executionNotResumable(
          `The execution is ${execution.status}${execution.pausedReason ? ` (${execution.pausedReason})` : ''} and cannot be resumed`,
        );
      }
      const resumed: Partial<Execution> = {
        status: 'running',
        pausedReason: null,
        pausedAt: null,
        updatedAt: now,
        ...(modifiedData ? { triggerData: { ...execution.triggerData, ...modifiedData } } : {}),
      };
      const next: Execution = { ...execution, ...resumed };
      await this.#workflows.updateExecution(trx, execution.tenantId, id, resumed);
      await this.#workflows.log(trx, execution.tenantId, id, 'resumed', execution.pausedReason ?? '', now);
      for (const run of await this.#workflows.nodeRuns(trx, execution.tenantId, id))
        await this.#restart(trx, next, execution, run, now);
      await this.#engine.advance(trx, next, await this.#engine.definition(trx, next), now);
      return next;
    });
  }

  /** Gives every run the pause left behind a job again: the failed node (retried), queued runs, and timers that fired while paused. */
  async #restart(trx: Executor, next: Execution, before: Execution, run: NodeRun, now: number): Promise<void> {
    if (run.status === 'failed' && before.pausedReason === 'node_failed' && run.nodeId === before.failedNodeId) {
      await this.#workflows.updateNodeRun(trx, run.tenantId, run.id, {
        status: 'queued',
        error: null,
        completedAt: null,
        runnerJobId: null,
        updatedAt: now,
      });
      await this.#engine.enqueueRun(trx, next, run.id, run.attempt, now);
    } else if (run.status === 'queued') {
      await this.#engine.enqueueRun(trx, next, run.id, run.attempt, now);
    } else if (run.status === 'running' && !run.runnerJobId?.startsWith(TASK_HOLD_PREFIX)) {
      // A node still running keeps its job; one whose job ended while paused (a timer) gets a new one.
      const holder = run.runnerJobId ? await this.#jobs.get(run.runnerJobId, trx) : null;
      if (holder && (holder.state === 'available' || holder.state === 'running')) return;
      const job = await this.#engine.enqueueRun(trx, next, run.id, run.attempt, now);
      await this.#workflows.updateNodeRun(trx, run.tenantId, run.id, { runnerJobId: job, updatedAt: now });
    }
  }

  /** Contract §10: `running` or `paused` → `cancelled`, pending tasks expire; a finished execution is 409 `EXECUTION_NOT_RESUMABLE`. */
  async cancel(auth: AuthContext, id: string, reason?: string): Promise<Execution> {
    return this.#control(auth, id, async (trx, execution, now) => {
      if (execution.status !== 'running' && execution.status !== 'paused')
        throw errors.executionNotResumable(`The execution is already ${execution.status}`);
      const cancelled = { status: 'cancelled' as const, cancelReason: reason ?? null, finishedAt: now, updatedAt: now };
      await this.#workflows.updateExecution(trx, execution.tenantId, id, cancelled);
      await this.#engine.closeOpenRuns(trx, execution, 'cancelled', 'execution cancelled', now);
      await this.#workflows.log(trx, execution.tenantId, id, 'cancelled', reason ?? '', now);
      return { ...execution, ...cancelled };
    });
  }

  async #control(
    auth: AuthContext,
    id: string,
    change: (trx: Executor, execution: Execution, now: number) => Promise<Execution>,
  ): Promise<Execution> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflow executions');
    return this.#database.db.transaction().execute(async (trx) => {
      const execution = await this.#workflows.lockExecution(trx, auth.tenant.id, id);
      if (!execution || !reaches(auth, execution.principal)) throw executionNotFound();
      return change(trx, execution, this.#clock.now());
    });
  }
}

function checkRunnable(workflow: Workflow): void {
  const check = validateWorkflow(definitionOf(workflow));
  if (check.errors.length > 0) throw errors.invalidWorkflow(check.errors, check.warnings, check.issues);
}
