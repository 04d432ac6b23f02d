import type { Executor } from '../../db/executor.ts';
import type { Principal } from '../../domain/principal.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { ModuleServices } from '../../platform/module.ts';
import { type ExpressionScope, toPlain } from './engine/expressions.ts';
import { nextSteps } from './engine/next-steps.ts';
import type { NodeState, WorkflowDefinition, WorkflowNode } from './engine/types.ts';
import { DEFAULT_PRIORITY, type ExecutionPriority, jobPriorityOf } from './execution-priority.ts';
import type { NodeOutcome, RunContext } from './node-handlers.ts';
import type { ReadyRuns } from './ready-runs.ts';
import { definitionOf } from './workflow-definition.ts';
import type { Execution, NodeRun, Workflow, WorkflowsRepository } from './workflows.repository.ts';

/** The job that runs one node run. */
export const RUN_NODE_JOB = 'workflows.run_node';
export interface RunNodePayload {
  tenantId: string;
  executionId: string;
  runId: string;
}

/** The part of the mail outbox the engine writes to (notification nodes, notify_on_failure). */
export type MailOutbox = Pick<ModuleServices['mail'], 'enqueue'>;

/** How an execution is started: by a person or key (`manual`/`api`) or by a trigger (with its dedupe key). */
export interface StartInput {
  workflow: Workflow;
  triggerType: string;
  triggerData: Record<string, unknown>;
  /** Unique per trigger firing (`upload:<workflow>:<event>`); a second start with it is a no-op. */
  triggerKey?: string;
  /** The job priority class of its steps; default `normal`. */
  priority?: ExecutionPriority;
  /** Whom it runs as and who owns it: the caller of `execute`, or the workflow's owner for a trigger. */
  principal: Principal;
}

/** What a node finished with, as the engine records it (a timer or a checkpoint goes on in another job). */
type FinalOutcome = Extract<NodeOutcome, { kind: 'completed' | 'suspend' }>;

/** One line of the execution log a step writes (`node_completed`, `node_skipped`). */
export interface StepLog {
  nodeId: string;
  kind: 'node_completed' | 'node_skipped';
  message: string;
  at: number;
}

/** Writes a transition carries to the execution's next write (its finish), or writes itself after. */
interface PendingWrites {
  logs: { nodeId: string | null; kind: string; message: string; at: number }[];
  vars?: Record<string, unknown>;
}

/** Control steps a job ran past its own from one snapshot, for `recordChain` (built by step-chain.ts). */
export interface ChainedSteps {
  /** The execution with the chained `set_variable` results in its `vars`. */
  execution: Execution;
  /** Every run after the chain: the snapshot's, the job's own in its final state, and `added`. */
  runs: NodeRun[];
  /** The runs the chain created, already finished (completed or skipped). */
  added: NodeRun[];
  /** Their log lines, in the order they ran. */
  logs: StepLog[];
  varsChanged: boolean;
}

/** Marks a run held by a human task rather than a job. */
export const TASK_HOLD_PREFIX = 'task:';

/**
 * The transitions of an execution, each inside the caller's transaction: start, record a node's
 * result, decide what runs next (the pure core), pause, finish. Every transition writes its rows,
 * its `dag.execution.*` event and its follow-up jobs together, so a crash leaves either all or none.
 */
export class ExecutionEngine {
  readonly #clock: Clock;
  readonly #repo: WorkflowsRepository;
  readonly #jobs: JobQueue;
  readonly #events: EventLog;
  readonly #mail: MailOutbox;
  readonly #ready: ReadyRuns | undefined;
  readonly #definitions = new Map<string, WorkflowDefinition>();

  constructor(deps: {
    clock: Clock;
    workflows: WorkflowsRepository;
    jobs: JobQueue;
    events: EventLog;
    mail: MailOutbox;
    /** Where the runs a transition makes ready are remembered with their execution, for this process's worker. */
    ready?: ReadyRuns;
  }) {
    this.#ready = deps.ready;
    this.#clock = deps.clock;
    this.#repo = deps.workflows;
    this.#jobs = deps.jobs;
    this.#events = deps.events;
    this.#mail = deps.mail;
  }

  /** Inserts the execution and its first runs; null when `triggerKey` already started one. */
  async start(trx: Executor, input: StartInput): Promise<Execution | null> {
    const { workflow } = input;
    const now = this.#clock.now();
    const execution: Execution = {
      id: newId(now),
      tenantId: workflow.tenantId,
      workflowId: workflow.id,
      workflowVersion: workflow.version,
      workflowName: workflow.name,
      status: 'running',
      pausedReason: null,
      triggerType: input.triggerType,
      // As the column gives it back (no undefined values, dates as strings), for the snapshot of its first runs.
      triggerData: toPlain(input.triggerData) as Record<string, unknown>,
      vars: {},
      testRun: workflow.status === 'draft',
      finalOutput: null,
      error: null,
      failedNodeId: null,
      cancelReason: null,
      triggerKey: input.triggerKey ?? null,
      priority: input.priority ?? DEFAULT_PRIORITY,
      principal: input.principal,
      startedAt: now,
      pausedAt: null,
      finishedAt: null,
      updatedAt: now,
    };
    if (!(await this.#repo.startExecution(trx, execution, `version ${workflow.version}`))) return null;
    await this.#events.record(trx, {
      tenantId: workflow.tenantId,
      name: 'dag.execution.started',
      data: {
        execution_id: execution.id,
        workflow_id: workflow.id,
        workflow_name: workflow.name,
        status: 'running',
        trigger_type: execution.triggerType,
      },
    });
    const definition = definitionOf(workflow);
    this.#definitions.set(`${workflow.id}:${workflow.version}`, definition);
    await this.advance(trx, execution, definition, now, []); // a new execution has no runs yet
    return execution;
  }

  /** The version an execution started on (immutable, so cached). */
  async definition(db: Executor, execution: Execution): Promise<WorkflowDefinition> {
    const key = `${execution.workflowId}:${execution.workflowVersion}`;
    const cached = this.#definitions.get(key);
    if (cached) return cached;
    const parsed = await this.#repo.findVersion(
      db,
      execution.tenantId,
      execution.workflowId,
      execution.workflowVersion,
    );
    if (this.#definitions.size > 1000) this.#definitions.clear();
    this.#definitions.set(key, parsed);
    return parsed;
  }

  /**
   * Records a finished node (or a suspension) and moves the execution on. The run must be `running`
   * (its row may still say `queued` when the caller claimed and ran it in this same transaction:
   * `started_at` and `runner_job_id` are written here too). `runs`, when the caller read every run
   * of the execution in this transaction, spares the next-step decision reading them again.
   */
  async recordOutcome(
    trx: Executor,
    execution: Execution,
    run: NodeRun,
    node: WorkflowNode,
    outcome: FinalOutcome,
    definition: WorkflowDefinition,
    runs?: readonly NodeRun[],
  ): Promise<void> {
    const now = this.#clock.now();
    const { tenantId, id: executionId } = execution;
    const context = runContext(execution, run, node, now);
    if (outcome.kind === 'suspend') {
      const holder = await outcome.hold(trx, context);
      await this.#repo.updateNodeRun(trx, tenantId, run.id, { runnerJobId: holder, updatedAt: now });
      await this.#repo.log(trx, tenantId, executionId, 'node_waiting', holder, now, node.id);
      if (execution.status === 'running') await this.advance(trx, execution, definition, now);
      return;
    }
    await outcome.effects?.(trx, context);
    const completed = {
      status: 'completed' as const,
      output: outcome.output ?? null,
      error: null,
      checkpoint: null,
      startedAt: run.startedAt,
      runnerJobId: run.runnerJobId,
      completedAt: now,
      updatedAt: now,
    };
    await this.#repo.updateNodeRun(trx, tenantId, run.id, completed);
    await this.#repo.log(trx, tenantId, executionId, 'node_completed', '', now, node.id);
    let next = execution;
    if (outcome.setVariable) {
      // As the column gives the variables back (an undefined value is no variable), for the steps below.
      next = {
        ...execution,
        vars: toPlain({ ...execution.vars, [outcome.setVariable.name]: outcome.setVariable.value }) as Record<
          string,
          unknown
        >,
      };
      await this.#repo.updateExecution(trx, tenantId, executionId, { vars: next.vars, updatedAt: now });
    }
    if (outcome.end) {
      await this.closeOpenRuns(trx, next, 'skipped', `ended by node "${node.id}"`, now);
      await this.finish(
        trx,
        next,
        outcome.end.status,
        outcome.end.output,
        now,
        outcome.end.status === 'failed' ? `Ended by node "${node.id}"` : null,
        node.id,
        definition,
      );
      return;
    }
    if (next.status === 'paused' && next.pausedReason === 'awaiting_approval') {
      const resumed = { status: 'running' as const, pausedReason: null, pausedAt: null, updatedAt: now };
      next = { ...next, ...resumed };
      await this.#repo.updateExecution(trx, tenantId, executionId, resumed);
      await this.#repo.log(trx, tenantId, executionId, 'resumed', 'awaiting_approval', now);
    }
    // The known runs with this one's output as its column gives it back, as a read would.
    if (next.status === 'running')
      await this.advance(
        trx,
        next,
        definition,
        now,
        runs?.map((r) => (r.id === run.id ? { ...r, ...completed, output: toPlain(completed.output) } : r)),
      );
  }

  /**
   * A node that runs in several jobs (a loop, batch by batch) got this far: its effects so far and
   * its checkpoint commit with the job that did the work, and the next job, which now holds the run,
   * goes on from the checkpoint. A worker killed mid-batch repeats that batch only.
   */
  async checkpoint(
    trx: Executor,
    execution: Execution,
    run: NodeRun,
    node: WorkflowNode,
    outcome: Extract<NodeOutcome, { kind: 'checkpoint' }>,
  ): Promise<void> {
    const now = this.#clock.now();
    await outcome.effects?.(trx, runContext(execution, run, node, now));
    const job = await this.enqueueRun(trx, execution, run.id, run.attempt, now);
    await this.#repo.updateNodeRun(trx, execution.tenantId, run.id, {
      checkpoint: outcome.checkpoint,
      runnerJobId: job,
      updatedAt: now,
    });
    await this.#repo.log(trx, execution.tenantId, execution.id, 'node_progress', outcome.progress, now, node.id);
  }

  /**
   * A node failed: retry it (`retry.max_attempts`), or apply `error_handling.on_failure`. `retry:
   * false` skips the node's retries (its job's process died twice running it: another attempt would
   * only kill another worker).
   */
  async nodeFailed(
    trx: Executor,
    execution: Execution,
    run: NodeRun,
    node: WorkflowNode,
    message: string,
    definition: WorkflowDefinition,
    options: { retry?: boolean } = {},
  ): Promise<void> {
    const now = this.#clock.now();
    const { tenantId, id } = execution;
    const maxAttempts = node.retry?.max_attempts ?? 1;
    if (options.retry !== false && run.attempt < maxAttempts) {
      const attempt = run.attempt + 1;
      await this.#repo.updateNodeRun(trx, tenantId, run.id, {
        status: 'queued',
        attempt,
        error: message,
        startedAt: null,
        runnerJobId: null,
        updatedAt: now,
      });
      await this.#repo.log(trx, tenantId, id, 'node_retry', message, now, node.id);
      await this.enqueueRun(trx, execution, run.id, attempt, now + (node.retry?.backoff_seconds ?? 0) * 1000);
      return;
    }
    await this.#repo.updateNodeRun(trx, tenantId, run.id, {
      status: 'failed',
      error: message,
      startedAt: run.startedAt,
      runnerJobId: run.runnerJobId,
      completedAt: now,
      updatedAt: now,
    });
    await this.#repo.log(trx, tenantId, id, 'node_failed', message, now, node.id);
    const onFailure = definition.error_handling?.on_failure ?? 'fail';
    if (onFailure === 'continue') {
      if (execution.status === 'running') await this.advance(trx, execution, definition, now);
      return;
    }
    if (onFailure === 'pause') {
      const paused = {
        status: 'paused' as const,
        pausedReason: 'node_failed',
        pausedAt: now,
        failedNodeId: node.id,
        error: message,
        updatedAt: now,
      };
      await this.#repo.updateExecution(trx, tenantId, id, paused);
      await this.recordPaused(trx, { ...execution, ...paused }, now);
      return;
    }
    await this.closeOpenRuns(trx, execution, 'cancelled', `node "${node.id}" failed`, now);
    await this.finish(trx, execution, 'failed', null, now, message, node.id, definition);
  }

  /** A run that will not run (its `run_if` is false): skipped with the reason, and the execution moves on. */
  async skipRun(
    trx: Executor,
    execution: Execution,
    run: NodeRun,
    node: WorkflowNode,
    reason: string,
    definition: WorkflowDefinition,
    runs?: readonly NodeRun[],
  ): Promise<void> {
    const now = this.#clock.now();
    const skipped = {
      status: 'skipped' as const,
      reason,
      startedAt: run.startedAt,
      runnerJobId: run.runnerJobId,
      completedAt: now,
      updatedAt: now,
    };
    await this.#repo.updateNodeRun(trx, execution.tenantId, run.id, skipped);
    await this.#repo.log(trx, execution.tenantId, execution.id, 'node_skipped', reason, now, node.id);
    if (execution.status === 'running')
      await this.advance(
        trx,
        execution,
        definition,
        now,
        runs?.map((r) => (r.id === run.id ? { ...r, ...skipped } : r)),
      );
  }

  /**
   * Records a job's run and the control steps its job ran after it from the same snapshot
   * (step-chain.ts), in the caller's transaction: the run's result, the chained runs in one insert,
   * all their log lines in one insert, the variables once, then the next-step decision over the
   * runs as they now are (the nodes the chain left get their runs and jobs, or the execution finishes).
   * The caller checked, under the execution's lock, that the chain started from the current runs.
   */
  async recordChain(
    trx: Executor,
    run: NodeRun,
    log: StepLog,
    chain: ChainedSteps,
    definition: WorkflowDefinition,
  ): Promise<void> {
    const now = this.#clock.now();
    const { execution } = chain;
    const { tenantId, id: executionId } = execution;
    await this.#repo.updateNodeRun(trx, tenantId, run.id, {
      status: run.status,
      output: run.output,
      error: null,
      reason: run.reason,
      checkpoint: null,
      startedAt: run.startedAt,
      runnerJobId: run.runnerJobId,
      completedAt: run.completedAt,
      updatedAt: now,
    });
    // Chained runs were run by this job: it is their runner, as a job of their own would have been.
    await this.#repo.insertNodeRuns(
      trx,
      chain.added.map((r) => (r.startedAt === null ? r : { ...r, runnerJobId: run.runnerJobId })),
    );
    // The log lines and the variables ride on the finish's own writes when the chain ends the execution.
    const pending: PendingWrites = {
      logs: [log, ...chain.logs],
      ...(chain.varsChanged ? { vars: execution.vars } : {}),
    };
    await this.advance(trx, execution, definition, now, chain.runs, pending);
    await this.#repo.logMany(trx, tenantId, executionId, pending.logs);
    if (pending.vars)
      await this.#repo.updateExecution(trx, tenantId, executionId, { vars: pending.vars, updatedAt: now });
  }

  /** Fails the whole execution (a `run_if` that cannot be evaluated): open runs are cancelled with `reason`. */
  async failExecution(
    trx: Executor,
    execution: Execution,
    message: string,
    reason: string,
    definition: WorkflowDefinition,
  ): Promise<void> {
    const now = this.#clock.now();
    await this.closeOpenRuns(trx, execution, 'cancelled', reason, now);
    await this.finish(trx, execution, 'failed', null, now, message, null, definition);
  }

  /** Records the results of the pure decision: skipped runs, newly ready runs (with their jobs), the end, or a wait on tasks. */
  async advance(
    trx: Executor,
    execution: Execution,
    definition: WorkflowDefinition,
    now: number,
    known?: readonly NodeRun[],
    pending?: PendingWrites,
  ): Promise<void> {
    const runs = known ?? (await this.#repo.nodeRuns(trx, execution.tenantId, execution.id));
    const states: Record<string, NodeState> = {};
    for (const run of runs) states[run.nodeId] = run.status;
    // `run_if` is not evaluated here (inside the caller's transaction): a node with one is made
    // ready and its job evaluates it in the expression sandbox, then runs or skips it (node-runner.ts).
    const decision = nextSteps(definition.nodes, states, undefined, rejectedNodes(definition.nodes, runs));
    const added: NodeRun[] = [
      ...decision.skipped.map((s) => newRun(execution, s.id, 'skipped', now, s.reason)),
      ...decision.ready.map((id) => newRun(execution, id, 'queued', now, null)),
    ];
    const queued = added.filter((r) => r.status === 'queued');
    if (queued.length === 0) await this.#repo.insertNodeRuns(trx, added);
    // The runs and their jobs: one statement on PostgreSQL.
    else
      await this.#jobs.enqueueMany(
        trx,
        queued.map((run) => this.runJob(execution, run.id, 1, now)),
        { along: this.#repo.insertNodeRunsQuery(trx, added) },
      );
    const all = [...runs, ...added];
    if (queued.length > 0 && execution.status === 'running')
      this.#ready?.remember(
        { execution, definition, runs: all },
        queued.map((r) => r.id),
      );
    if (decision.done && decision.ready.length === 0) {
      const anyFailed = all.some((r) => r.status === 'failed');
      const onFailure = definition.error_handling?.on_failure ?? 'fail';
      const status = anyFailed && onFailure !== 'continue' ? 'failed' : 'completed';
      await this.finish(
        trx,
        execution,
        status,
        finalOutput(definition.nodes, all),
        now,
        status === 'failed' ? 'A node failed' : null,
        null,
        definition,
        pending,
      );
      return;
    }
    const open = all.filter((r) => r.status === 'queued' || r.status === 'running');
    if (
      execution.status === 'running' &&
      open.length > 0 &&
      open.every((r) => r.runnerJobId?.startsWith(TASK_HOLD_PREFIX))
    ) {
      // Only human tasks are left to wait on (contract §10).
      const paused = { status: 'paused' as const, pausedReason: 'awaiting_approval', pausedAt: now, updatedAt: now };
      await this.#repo.updateExecution(trx, execution.tenantId, execution.id, paused);
      await this.recordPaused(trx, { ...execution, ...paused }, now);
    }
  }

  async finish(
    trx: Executor,
    execution: Execution,
    status: 'completed' | 'failed',
    output: unknown,
    now: number,
    error: string | null,
    failedNodeId: string | null,
    definition?: WorkflowDefinition,
    pending?: PendingWrites,
  ): Promise<void> {
    const { tenantId, id } = execution;
    await this.#repo.updateExecution(trx, tenantId, id, {
      status,
      finalOutput: output ?? null,
      finishedAt: now,
      updatedAt: now,
      error,
      failedNodeId,
      ...(pending?.vars ? { vars: pending.vars } : {}),
    });
    await this.#repo.logMany(trx, tenantId, id, [
      ...(pending?.logs ?? []),
      { nodeId: null, kind: status, message: error ?? '', at: now },
    ]);
    if (pending) {
      // Written: the caller has nothing left to write of them.
      pending.logs = [];
      delete pending.vars;
    }
    // Only human nodes (or a loop running them) hold tasks: other executions spare the write.
    if (!definition || holdsTasks(definition)) await this.#repo.expirePendingTasks(trx, tenantId, id, now);
    const base = { execution_id: id, workflow_id: execution.workflowId, workflow_name: execution.workflowName };
    if (status === 'completed') {
      await this.#events.record(trx, {
        tenantId,
        name: 'dag.execution.completed',
        data: {
          ...base,
          status,
          duration_seconds: Math.round((now - execution.startedAt) / 1000),
          final_output: output ?? null,
        },
      });
      return;
    }
    await this.#events.record(trx, {
      tenantId,
      name: 'dag.execution.failed',
      data: { ...base, status, error: error ?? 'failed', failed_node_id: failedNodeId },
    });
    const notify = (definition ?? (await this.definition(trx, execution))).error_handling?.notify_on_failure ?? [];
    for (const to of notify) {
      await this.#mail.enqueue(trx, {
        tenantId,
        kind: 'workflow_failed',
        to,
        data: { workflowName: execution.workflowName, executionId: id, failedNodeId, error: error ?? 'failed' },
        at: now,
      });
    }
  }

  async recordPaused(trx: Executor, execution: Execution, now: number): Promise<void> {
    await this.#repo.log(trx, execution.tenantId, execution.id, 'paused', execution.pausedReason ?? '', now);
    await this.#events.record(trx, {
      tenantId: execution.tenantId,
      name: 'dag.execution.paused',
      data: {
        execution_id: execution.id,
        workflow_id: execution.workflowId,
        workflow_name: execution.workflowName,
        status: 'paused',
        paused_reason: execution.pausedReason,
      },
    });
  }

  async enqueueRun(
    trx: Executor,
    execution: Execution,
    runId: string,
    attempt: number,
    runAt: number,
  ): Promise<string> {
    const [job] = await this.#jobs.enqueueMany(trx, [this.runJob(execution, runId, attempt, runAt)]);
    return job!.id;
  }

  private runJob(execution: Execution, runId: string, attempt: number, runAt: number) {
    const payload: RunNodePayload = { tenantId: execution.tenantId, executionId: execution.id, runId };
    return {
      kind: RUN_NODE_JOB,
      payload,
      // One key per run, attempt and due time: a second enqueue of the same step is a no-op.
      options: {
        runAt,
        uniqueKey: `wf:${runId}:a${attempt}:${runAt}`,
        tenantId: execution.tenantId,
        priority: jobPriorityOf(execution.priority),
      },
    } as const;
  }

  /** Ends every open run (cancel, end node, failure) and expires the tasks holding any. */
  async closeOpenRuns(
    trx: Executor,
    execution: Execution,
    status: 'cancelled' | 'skipped',
    reason: string,
    now: number,
  ): Promise<void> {
    await this.#repo.closeOpenRuns(trx, execution.tenantId, execution.id, status, reason, now);
    await this.#repo.expirePendingTasks(trx, execution.tenantId, execution.id, now);
  }
}

function runContext(execution: Execution, run: NodeRun, node: WorkflowNode, now: number): RunContext {
  const { tenantId, id: executionId, workflowId, workflowName } = execution;
  return {
    tenantId,
    executionId,
    workflowId,
    workflowName,
    runId: run.id,
    nodeId: node.id,
    jobPriority: jobPriorityOf(execution.priority),
    now,
  };
}

/** Whether an execution of this definition can hold human tasks (a human node, or a loop that may run one). */
function holdsTasks(definition: WorkflowDefinition): boolean {
  return definition.nodes.some((n) => n.type.startsWith('human_') || n.type === 'loop');
}

/** Human nodes whose task was rejected (contract §10: dependents without a run_if are skipped). */
export function rejectedNodes(nodes: readonly WorkflowNode[], runs: readonly NodeRun[]): Set<string> {
  const human = new Set(nodes.filter((n) => n.type.startsWith('human_')).map((n) => n.id));
  return new Set(
    runs
      .filter(
        (r) =>
          r.status === 'completed' &&
          human.has(r.nodeId) &&
          (r.output as { decision?: string } | null)?.decision === 'rejected',
      )
      .map((r) => r.nodeId),
  );
}

export function newRun(
  execution: Execution,
  nodeId: string,
  status: 'queued' | 'skipped',
  now: number,
  reason: string | null,
): NodeRun {
  return {
    id: newId(now),
    tenantId: execution.tenantId,
    executionId: execution.id,
    nodeId,
    status,
    attempt: 1,
    output: null,
    error: null,
    reason,
    runnerJobId: null,
    checkpoint: null,
    startedAt: null,
    completedAt: status === 'skipped' ? now : null,
    updatedAt: now,
  };
}

/** The variables expressions see: trigger data, node results so far, variables, the execution id. */
export function scopeOf(execution: Execution, runs: readonly NodeRun[]): ExpressionScope {
  const nodes: ExpressionScope['nodes'] = {};
  for (const run of runs) nodes[run.nodeId] = { status: run.status, output: run.output };
  return { trigger: execution.triggerData, nodes, vars: execution.vars, execution: { id: execution.id } };
}

/** Without an `end` node: the output of the one completed sink, or all completed sinks' outputs by id. */
function finalOutput(nodes: readonly WorkflowNode[], runs: readonly NodeRun[]): unknown {
  const upstream = new Set(nodes.flatMap((n) => n.depends_on ?? []));
  const sinks = runs.filter((r) => r.status === 'completed' && !upstream.has(r.nodeId));
  if (sinks.length === 1) return sinks[0]!.output;
  return Object.fromEntries(sinks.map((r) => [r.nodeId, r.output]));
}
