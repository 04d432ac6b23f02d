import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { isPrincipal, principalKey, principalOf } from '../../domain/principal.ts';
import { isTenantAdmin } from '../../domain/roles.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { type ExecutionEngine, type MailOutbox, TASK_HOLD_PREFIX } from './execution-engine.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { RunContext } from './node-handlers.ts';
import type { Assignee, Task, TaskFilter, TaskRefCondition, TasksRepository } from './tasks.repository.ts';
import type { WorkflowsRepository } from './workflows.repository.ts';

/** The part of the workflows repository a task needs: the execution and node run it holds. */
export type HeldRuns = Pick<WorkflowsRepository, 'findExecution' | 'findNodeRun' | 'lockExecution'>;

/** The job that escalates or expires a task at its time. */
export const TASK_TIMER_JOB = 'workflows.task_timer';
export interface TaskTimerPayload {
  tenantId: string;
  taskId: string;
  action: 'escalate' | 'expire';
}

/** What a human node asks for (times are epoch ms). */
export interface NewTask {
  taskType: Task['taskType'];
  title: string;
  description: string;
  context: Record<string, unknown>;
  data: Record<string, unknown>;
  assigneeType: Task['assigneeType'];
  assigneeValue: string;
  editableFields: string[] | null;
  onTimeout: Task['onTimeout'];
  escalateTo: string | null;
  dueAt: number;
  escalationAt: number;
}

export interface Decision {
  decision: 'approved' | 'rejected' | 'modified';
  comments?: string;
  modifiedData?: Record<string, unknown>;
}

/** How a task ended, as a human node's output shows it and as a task source receives it. */
export interface TaskOutcome {
  decision: 'approved' | 'rejected' | 'modified' | 'expired';
  comments: string | null;
  data: Record<string, unknown>;
  decided_by: string | null;
  decided_at: string;
  decision_source: 'human' | 'timeout';
}

/** Another module's kind of task (an import agent's proposal): told once, in the transaction that decides the task. */
export interface TaskSource {
  settle(trx: Executor, task: Task, outcome: TaskOutcome): Promise<void>;
  /**
   * Who sees and decides this source's tasks instead of their assignees (an AI review: whoever may
   * edit its document). Tenant administrators always do; without it, the assignee rule applies.
   */
  access?: TaskAccess;
}

/** A task source's own rule for who reaches its tasks. */
export interface TaskAccess {
  /** Whether the caller (not a tenant administrator) reaches this task. */
  reaches(db: Executor, auth: AuthContext, task: Task): Promise<boolean>;
  /** The same as SQL over a task's `source_ref`, for the inbox lists. */
  condition(auth: AuthContext): TaskRefCondition;
}

const WORKFLOW_SOURCE = 'workflow';
type OwnerField = 'executionId' | 'workflowId' | 'workflowName' | 'nodeId' | 'runId' | 'source' | 'sourceRef';

type Members = Pick<ModuleServices['members'], 'membership' | 'activeEmails'>;

export const taskNotFound = errors.taskNotFound;

/**
 * Human tasks (contract §10): created by human nodes, escalated and expired by durable timers,
 * completed by people. Completion, escalation and expiry each run in one transaction with the
 * execution locked, so two people completing at once leave exactly one winner.
 */
export class TasksService {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #repo: TasksRepository;
  readonly #engine: ExecutionEngine;
  readonly #workflows: HeldRuns;
  readonly #jobs: JobQueue;
  readonly #events: EventLog;
  readonly #mail: MailOutbox;
  readonly #members: Members;
  readonly #sources = new Map<string, TaskSource>();

  constructor(deps: {
    database: Database;
    clock: Clock;
    tasks: TasksRepository;
    engine: ExecutionEngine;
    /** The executions and node runs a task holds. */
    workflows: HeldRuns;
    jobs: JobQueue;
    events: EventLog;
    mail: MailOutbox;
    /** Identity's directory: a user's roles and workspaces, the assignees' e-mail addresses. */
    members: Members;
  }) {
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#repo = deps.tasks;
    this.#engine = deps.engine;
    this.#workflows = deps.workflows;
    this.#jobs = deps.jobs;
    this.#events = deps.events;
    this.#mail = deps.mail;
    this.#members = deps.members;
  }

  /** Inside the node's hand-over transaction: the task, its two timers, its event and mail. Returns the run's holder mark. */
  async create(trx: Executor, run: RunContext, task: NewTask): Promise<string> {
    const owner = {
      executionId: run.executionId,
      workflowId: run.workflowId,
      workflowName: run.workflowName,
      nodeId: run.nodeId,
      runId: run.runId,
      source: WORKFLOW_SOURCE,
      sourceRef: null,
    };
    const created = await this.#insert(trx, run.tenantId, run.now, owner, task, run.jobPriority);
    return `${TASK_HOLD_PREFIX}${created.id}`;
  }

  /**
   * Registers another module's kind of task: its tasks share the inbox, the permissions, the timers
   * and the events of workflow tasks, and `source.settle` is called in the transaction that
   * completes or expires one (instead of resuming an execution).
   */
  registerSource(name: string, source: TaskSource): void {
    if (name === WORKFLOW_SOURCE || this.#sources.has(name))
      throw new Error(`Task source "${name}" is already registered`);
    this.#sources.set(name, source);
  }

  /** A task of a registered source, in the caller's transaction; `label` stands where a workflow task names its workflow. */
  async createFor(
    trx: Executor,
    owner: { tenantId: string; source: string; sourceRef: string; label: string },
    task: NewTask,
  ): Promise<Task> {
    if (!this.#sources.has(owner.source)) throw new Error(`Task source "${owner.source}" is not registered`);
    const fields = {
      executionId: null,
      workflowId: null,
      workflowName: owner.label,
      nodeId: null,
      runId: null,
      source: owner.source,
      sourceRef: owner.sourceRef,
    };
    return this.#insert(trx, owner.tenantId, this.#clock.now(), fields, task);
  }

  /** Takes a source's pending tasks out of the inbox (as `expired`, which their source is not told) when what they decide is gone. */
  async withdraw(trx: Executor, tenantId: string, source: string, taskIds: string[]): Promise<void> {
    if (source === WORKFLOW_SOURCE || taskIds.length === 0) return;
    await this.#repo.expirePending(trx, tenantId, source, taskIds, this.#clock.now());
  }

  /** `jobPriority`: the timers' job priority (a workflow task's execution's; 0 for other sources). */
  async #insert(
    trx: Executor,
    tenantId: string,
    now: number,
    owner: Pick<Task, OwnerField>,
    task: NewTask,
    jobPriority = 0,
  ): Promise<Task> {
    const created: Task = {
      id: newId(now),
      tenantId,
      ...owner,
      taskType: task.taskType,
      title: task.title,
      description: task.description,
      context: task.context,
      assigneeType: task.assigneeType,
      assigneeValue: task.assigneeValue,
      editableFields: task.editableFields,
      onTimeout: task.onTimeout,
      escalateTo: task.escalateTo,
      status: 'pending',
      decision: null,
      comments: null,
      data: task.data,
      decidedBy: null,
      escalatedAt: null,
      createdAt: now,
      dueAt: task.dueAt,
      escalationAt: task.escalationAt,
      completedAt: null,
      updatedAt: now,
    };
    await this.#repo.insert(trx, created);
    await this.#timer(trx, created, 'escalate', created.escalationAt, jobPriority);
    await this.#timer(trx, created, 'expire', created.dueAt, jobPriority);
    await this.#events.record(trx, {
      tenantId: created.tenantId,
      name: 'dag.task.created',
      data: {
        ...eventIds(created),
        title: created.title,
        assignee_type: created.assigneeType,
        assignee_value: created.assigneeValue,
        due_at: new Date(created.dueAt).toISOString(),
      },
    });
    await this.#tell(trx, created, created.assigneeType, created.assigneeValue, 'task_assigned');
    return created;
  }

  /** The tasks the caller sees (owners, admins and API keys: all; others: assigned to them, or of executions running as them), filtered. */
  async list(
    auth: AuthContext,
    f: { assignee?: string; role?: string; status?: Task['status']; limit: number; offset: number },
  ) {
    requireFeature(auth, 'workflows');
    const db = this.#database.db;
    const filter: TaskFilter = {
      limit: f.limit,
      offset: f.offset,
      ...(f.role ? { role: f.role } : {}),
      ...(f.status ? { status: f.status } : {}),
    };
    if (f.assignee) {
      const assignee = await this.#members.membership(db, auth.tenant.id, f.assignee);
      if (!assignee) return { rows: [], total: 0 };
      filter.assignee = assignee;
    }
    if (!isTenantAdmin(auth)) {
      const principal = principalKey(principalOf(auth));
      if (principal === null) return { rows: [], total: 0 };
      const sources = [...this.#sources].flatMap(([name, source]) =>
        source.access ? [{ name, condition: source.access.condition(auth) }] : [],
      );
      filter.visibleTo = { assignee: await this.#me(db, auth), principal, sources };
    }
    return this.#repo.list(db, auth.tenant.id, filter);
  }

  /** A task the caller sees (as `list`), else 404 `TASK_NOT_FOUND`. */
  async get(auth: AuthContext, id: string): Promise<Task> {
    requireFeature(auth, 'workflows');
    const db = this.#database.db;
    const task = await this.#repo.find(db, auth.tenant.id, id);
    if (!task || !(await this.#sees(db, auth, task))) throw taskNotFound();
    return task;
  }

  async #sees(db: Executor, auth: AuthContext, task: Task): Promise<boolean> {
    if (isTenantAdmin(auth)) return true;
    const access = this.#sources.get(task.source)?.access;
    if (access) return access.reaches(db, auth, task);
    const me = await this.#me(db, auth);
    if (me && isAssignee(me, task)) return true;
    const execution = task.executionId
      ? await this.#workflows.findExecution(db, auth.tenant.id, task.executionId)
      : null;
    return execution !== null && isPrincipal(auth, execution.principal);
  }

  /** The caller as an assignee (their roles and workspaces); null for API keys. */
  #me(db: Executor, auth: AuthContext) {
    return auth.userId ? this.#members.membership(db, auth.tenant.id, auth.userId) : Promise.resolve(null);
  }

  /** Contract §10: an assignee, an owner or an admin decides; 409 when completed or expired. */
  async complete(
    auth: AuthContext,
    id: string,
    input: Decision,
  ): Promise<{ task: Task; executionStatus: string | null }> {
    requireFeature(auth, 'workflows');
    const tenantId = auth.tenant.id;
    return this.#database.db.transaction().execute(async (trx) => {
      const first = await this.#repo.find(trx, tenantId, id);
      if (!first) throw taskNotFound();
      // Lock the execution first (as every transition does), then read the task again under it.
      const execution = first.executionId
        ? await this.#workflows.lockExecution(trx, tenantId, first.executionId)
        : null;
      const task = (await this.#repo.find(trx, tenantId, id))!;
      await this.#checkCompletable(trx, auth, task, input);
      const now = this.#clock.now();
      const data = input.decision === 'modified' ? { ...task.data, ...input.modifiedData } : task.data;
      const decidedBy = auth.userId ?? `api_key:${auth.apiKeyId}`;
      const patch = {
        status: 'completed' as const,
        decision: input.decision,
        comments: input.comments ?? null,
        data,
        decidedBy,
        completedAt: now,
        updatedAt: now,
      };
      if (!(await this.#repo.updatePending(trx, tenantId, id, patch))) throw errors.taskAlreadyCompleted();
      const done = { ...task, ...patch };
      await this.#events.record(trx, {
        tenantId,
        name: 'dag.task.completed',
        data: { ...eventIds(task), decision: input.decision, completed_by: decidedBy },
      });
      const output = {
        decision: input.decision,
        comments: input.comments ?? null,
        data,
        decided_by: decidedBy,
        decided_at: new Date(now).toISOString(),
        decision_source: 'human' as const,
      };
      await this.#settle(trx, done, output);
      if (!task.executionId) return { task: done, executionStatus: null };
      const after = await this.#workflows.findExecution(trx, tenantId, task.executionId);
      return { task: done, executionStatus: after?.status ?? execution?.status ?? 'unknown' };
    });
  }

  async #checkCompletable(trx: Executor, auth: AuthContext, task: Task, input: Decision): Promise<void> {
    const access = this.#sources.get(task.source)?.access;
    if (access && !isTenantAdmin(auth)) {
      // Who may not see the task may not learn it exists either.
      if (!(await access.reaches(trx, auth, task))) throw taskNotFound();
    } else if (!isTenantAdmin(auth)) {
      const me = await this.#me(trx, auth);
      if (!me || !isAssignee(me, task))
        throw errors.insufficientPermissions('Only an assignee, an owner or an admin may complete this task');
    }
    if (task.status === 'completed') throw errors.taskAlreadyCompleted();
    if (task.status === 'expired') throw errors.taskExpired();
    if (input.decision === 'modified' && !input.modifiedData)
      throw errors.field('modified_data', 'is required when decision is modified');
    if (input.modifiedData && input.decision !== 'modified')
      throw errors.field('modified_data', 'is only allowed when decision is modified');
    if (task.taskType === 'review' && input.modifiedData) {
      const editable = new Set(task.editableFields ?? []);
      const refused = Object.keys(input.modifiedData).filter((k) => !editable.has(k));
      if (refused.length > 0)
        throw errors.validation(
          refused.map((field) => ({
            field: `modified_data.${field}`,
            message: 'is not an editable field of this review',
          })),
        );
    }
  }

  /** The timer job: escalation keeps the task pending and may reassign it; expiry applies `on_timeout`. */
  async fire(job: RunningJob<TaskTimerPayload>): Promise<void> {
    const { tenantId, taskId, action } = job.payload;
    await this.#database.db.transaction().execute(async (trx) => {
      const first = await this.#repo.find(trx, tenantId, taskId);
      if (!first) return;
      if (first.executionId) await this.#workflows.lockExecution(trx, tenantId, first.executionId);
      const task = (await this.#repo.find(trx, tenantId, taskId))!;
      await job.completeIn(trx);
      if (task.status !== 'pending') return;
      const now = this.#clock.now();
      if (action === 'escalate') await this.#escalate(trx, task, now);
      else await this.#expire(trx, task, now);
    });
  }

  async #escalate(trx: Executor, task: Task, now: number): Promise<void> {
    if (task.escalatedAt !== null) return;
    const reassigned = task.escalateTo ?? null;
    await this.#repo.updatePending(trx, task.tenantId, task.id, {
      escalatedAt: now,
      updatedAt: now,
      ...(reassigned ? { assigneeValue: reassigned } : {}),
    });
    await this.#events.record(trx, {
      tenantId: task.tenantId,
      name: 'dag.task.escalated',
      data: { ...eventIds(task), escalated_to: reassigned },
    });
    // Reassigned: the new assignees hear of it; else the same ones are reminded it runs out.
    await this.#tell(
      trx,
      task,
      task.assigneeType,
      reassigned ?? task.assigneeValue,
      reassigned ? 'task_escalated' : 'task_expiring',
    );
  }

  async #expire(trx: Executor, task: Task, now: number): Promise<void> {
    await this.#repo.updatePending(trx, task.tenantId, task.id, { status: 'expired', updatedAt: now });
    const data = task.data;
    if (task.onTimeout === 'fail') {
      if (task.source !== WORKFLOW_SOURCE)
        return this.#sourceOf(task).settle(trx, task, {
          decision: 'expired',
          comments: null,
          data,
          decided_by: null,
          decided_at: new Date(now).toISOString(),
          decision_source: 'timeout',
        });
      const held = await this.#heldRun(trx, task);
      if (held)
        await this.#engine.nodeFailed(
          trx,
          held.execution,
          held.run,
          held.node,
          `Node "${task.nodeId}": task "${task.title}" expired`,
          held.definition,
        );
      return;
    }
    const decision = task.onTimeout === 'approve' ? 'approved' : 'rejected';
    await this.#settle(trx, task, {
      decision,
      comments: null,
      data,
      decided_by: null,
      decided_at: new Date(now).toISOString(),
      decision_source: 'timeout',
    });
  }

  /** A decision reaches what the task belongs to: the waiting node run, or the registered source. */
  async #settle(trx: Executor, task: Task, outcome: TaskOutcome): Promise<void> {
    if (task.source !== WORKFLOW_SOURCE) return this.#sourceOf(task).settle(trx, task, outcome);
    const held = await this.#heldRun(trx, task);
    if (held)
      await this.#engine.recordOutcome(
        trx,
        held.execution,
        held.run,
        held.node,
        { kind: 'completed', output: outcome },
        held.definition,
      );
  }

  #sourceOf(task: Task): TaskSource {
    const source = this.#sources.get(task.source);
    // Every process sets up every module, so an unknown source is a deployment error: retried, not lost.
    if (!source) throw new Error(`Task ${task.id} belongs to source "${task.source}", which no module registered`);
    return source;
  }

  /** The node run this task holds, when the execution is still going. */
  async #heldRun(trx: Executor, task: Task) {
    if (!task.executionId || !task.runId) return null;
    const execution = await this.#workflows.findExecution(trx, task.tenantId, task.executionId);
    const run = await this.#workflows.findNodeRun(trx, task.tenantId, task.runId);
    if (!execution || !run || run.status !== 'running' || run.runnerJobId !== `${TASK_HOLD_PREFIX}${task.id}`)
      return null;
    if (execution.status !== 'running' && execution.status !== 'paused') return null;
    const definition = await this.#engine.definition(trx, execution);
    const node = definition.nodes.find((n) => n.id === task.nodeId);
    return node ? { execution, run, node, definition } : null;
  }

  async #timer(
    trx: Executor,
    task: Task,
    action: TaskTimerPayload['action'],
    at: number,
    priority: number,
  ): Promise<void> {
    const payload: TaskTimerPayload = { tenantId: task.tenantId, taskId: task.id, action };
    await this.#jobs.enqueue(trx, TASK_TIMER_JOB, payload, {
      runAt: at,
      uniqueKey: `wftask:${task.id}:${action}`,
      tenantId: task.tenantId,
      priority,
    });
  }

  async #tell(
    trx: Executor,
    task: Task,
    type: Task['assigneeType'],
    value: string,
    kind: 'task_assigned' | 'task_escalated' | 'task_expiring',
  ): Promise<void> {
    const owner =
      task.source === WORKFLOW_SOURCE ? `Workflow "${task.workflowName}"` : (task.workflowName ?? task.source);
    const data = { taskId: task.id, title: task.title, description: task.description, owner, dueAt: task.dueAt };
    for (const to of await this.#members.activeEmails(trx, task.tenantId, { type, value })) {
      await this.#mail.enqueue(trx, { tenantId: task.tenantId, kind, to, data, at: this.#clock.now() });
    }
  }
}

/** The ids every task event carries: the execution's, or (another source's task) null ones and the source's name. */
function eventIds(task: Task) {
  return {
    task_id: task.id,
    execution_id: task.executionId,
    workflow_id: task.workflowId,
    ...(task.source === WORKFLOW_SOURCE ? {} : { source: task.source }),
  };
}

function isAssignee(me: Assignee, task: Task): boolean {
  if (task.assigneeType === 'user') return task.assigneeValue === me.userId;
  if (task.assigneeType === 'role') return me.roles.includes(task.assigneeValue);
  return me.workspaceIds.includes(task.assigneeValue);
}
