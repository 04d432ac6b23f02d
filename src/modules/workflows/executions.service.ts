import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { requireCreate } from '../../domain/roles.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { evalCel, type ExpressionScope, resolveReferences } from './engine/expressions.ts';
import { nextSteps } from './engine/next-steps.ts';
import type { NodeState, WorkflowDefinition, WorkflowNode } from './engine/types.ts';
import { validateWorkflow } from './engine/validate.ts';
import { type NodeHandler, RAW_KEYS } from './node-handlers.ts';
import type { ExecutionRow, NodeRunRow, WorkflowsRepository } from './workflows.repository.ts';
import { definitionOf, workflowNotFound } from './workflows.service.ts';

/** The job that runs one node run. */
export const RUN_NODE_JOB = 'workflows.run_node';
export interface RunNodePayload {
  tenantId: string;
  executionId: string;
  runId: string;
}

export const executionNotFound = () => new AppError(404, 'execution_not_found', 'Execution not found');

/**
 * Drives executions: persistence and jobs around the pure core. Every transition (start, a node's
 * result, pause, resume, cancel) is one transaction that writes the rows, the events and the
 * follow-up jobs together; a worker that dies mid-node leaves a job that runs the node again,
 * and a finished node is never run again (its run row is no longer queued or running).
 */
export class ExecutionsService {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #repo: WorkflowsRepository;
  readonly #jobs: JobQueue;
  readonly #events: EventLog;
  readonly #handlers: Record<string, NodeHandler>;
  readonly #definitions = new Map<string, WorkflowDefinition>();

  constructor(deps: { database: Database; clock: Clock; workflows: WorkflowsRepository; jobs: JobQueue; events: EventLog; handlers: Record<string, NodeHandler> }) {
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#repo = deps.workflows;
    this.#jobs = deps.jobs;
    this.#events = deps.events;
    this.#handlers = deps.handlers;
  }

  /** Contract §10: `execute` on an active workflow, or a draft (a test run); a paused one is 409. */
  async execute(auth: AuthContext, workflowId: string, input: { triggerData: Record<string, unknown> }): Promise<ExecutionRow> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflow executions');
    const tenantId = auth.tenant.id;
    const now = this.#clock.now();
    return this.#database.db.transaction().execute(async (trx) => {
      const workflow = await this.#repo.findWorkflow(trx, tenantId, workflowId);
      if (!workflow) throw workflowNotFound();
      if (workflow.status === 'paused') throw errors.conflict('The workflow is paused; activate it (or move it to draft) to execute it');
      const definition = definitionOf(workflow);
      const check = validateWorkflow(definition);
      if (check.errors.length > 0) throw errors.invalidWorkflow(check.errors, check.warnings);
      const execution: ExecutionRow = {
        id: newId(now),
        tenant_id: tenantId,
        workflow_id: workflow.id,
        workflow_version: workflow.version,
        workflow_name: workflow.name,
        status: 'running',
        paused_reason: null,
        trigger_type: auth.via === 'api_key' ? 'api' : 'manual',
        trigger_data: JSON.stringify(input.triggerData),
        vars: '{}',
        test_run: workflow.status === 'draft' ? 1 : 0,
        final_output: null,
        error: null,
        failed_node_id: null,
        cancel_reason: null,
        started_at: now,
        paused_at: null,
        finished_at: null,
        updated_at: now,
      };
      await this.#repo.insertExecution(trx, execution);
      await this.#repo.updateWorkflow(trx, tenantId, workflow.id, { last_execution_at: now });
      await this.#repo.log(trx, tenantId, execution.id, 'started', `version ${workflow.version}`, now);
      await this.#events.record(trx, {
        tenantId,
        name: 'dag.execution.started',
        data: { execution_id: execution.id, workflow_id: workflow.id, workflow_name: workflow.name, status: 'running', trigger_type: execution.trigger_type },
      });
      await this.#advance(trx, execution, definition, now);
      return execution;
    });
  }

  async list(auth: AuthContext, o: { workflowId?: string; status?: string; limit: number; offset: number }) {
    requireFeature(auth, 'workflows');
    return this.#repo.listExecutions(this.#database.db, auth.tenant.id, o);
  }

  async get(auth: AuthContext, id: string): Promise<{ execution: ExecutionRow; runs: NodeRunRow[]; nodes: WorkflowNode[] }> {
    requireFeature(auth, 'workflows');
    const execution = await this.#repo.findExecution(this.#database.db, auth.tenant.id, id);
    if (!execution) throw executionNotFound();
    const runs = await this.#repo.nodeRuns(this.#database.db, auth.tenant.id, id);
    const definition = await this.#definition(this.#database.db, execution);
    return { execution, runs, nodes: definition.nodes };
  }

  /** Contract §10: only `running`; running nodes finish, no new node starts. */
  async pause(auth: AuthContext, id: string): Promise<ExecutionRow> {
    return this.#control(auth, id, async (trx, execution, now) => {
      if (execution.status !== 'running') throw errors.executionNotPausable(`The execution is ${execution.status}; only a running execution can be paused`);
      const next = { ...execution, status: 'paused' as const, paused_reason: 'manual', paused_at: now, updated_at: now };
      await this.#repo.updateExecution(trx, execution.tenant_id, id, next);
      await this.#recordPaused(trx, next, now);
      return next;
    });
  }

  /** Contract §10: executions paused by `pause` or by `on_failure: pause`; `modified_data` merges into the trigger data. */
  async resume(auth: AuthContext, id: string, modifiedData?: Record<string, unknown>): Promise<ExecutionRow> {
    return this.#control(auth, id, async (trx, execution, now) => {
      if (execution.status !== 'paused' || (execution.paused_reason !== 'manual' && execution.paused_reason !== 'node_failed')) {
        throw errors.executionNotResumable(`The execution is ${execution.status}${execution.paused_reason ? ` (${execution.paused_reason})` : ''} and cannot be resumed`);
      }
      const triggerData = modifiedData ? { ...parseJson<Record<string, unknown>>(execution.trigger_data, {}), ...modifiedData } : undefined;
      const next: ExecutionRow = { ...execution, status: 'running', paused_reason: null, paused_at: null, updated_at: now, ...(triggerData ? { trigger_data: JSON.stringify(triggerData) } : {}) };
      await this.#repo.updateExecution(trx, execution.tenant_id, id, next);
      await this.#repo.log(trx, execution.tenant_id, id, 'resumed', execution.paused_reason ?? '', now);
      for (const run of await this.#repo.nodeRuns(trx, execution.tenant_id, id)) {
        // The failed node is retried; queued nodes that waited out the pause start now.
        if (run.status === 'failed' && execution.paused_reason === 'node_failed' && run.node_id === execution.failed_node_id) {
          await this.#repo.updateNodeRun(trx, run.tenant_id, run.id, { status: 'queued', error: null, completed_at: null, updated_at: now });
          await this.#enqueueRun(trx, next, run.id, run.attempt, now);
        } else if (run.status === 'queued') {
          await this.#enqueueRun(trx, next, run.id, run.attempt, now);
        }
      }
      await this.#advance(trx, next, await this.#definition(trx, next), now);
      return next;
    });
  }

  /** Contract §10: `running` or `paused` → `cancelled`; a finished execution is 409 `EXECUTION_NOT_RESUMABLE`. */
  async cancel(auth: AuthContext, id: string, reason?: string): Promise<ExecutionRow> {
    return this.#control(auth, id, async (trx, execution, now) => {
      if (execution.status !== 'running' && execution.status !== 'paused') throw errors.executionNotResumable(`The execution is already ${execution.status}`);
      const next: ExecutionRow = { ...execution, status: 'cancelled', cancel_reason: reason ?? null, finished_at: now, updated_at: now };
      await this.#repo.updateExecution(trx, execution.tenant_id, id, next);
      await this.#repo.closeOpenRuns(trx, execution.tenant_id, id, 'cancelled', 'execution cancelled', now);
      await this.#repo.log(trx, execution.tenant_id, id, 'cancelled', reason ?? '', now);
      return next;
    });
  }

  /** The job handler: runs one node run, then records its result and what runs next. */
  async runNode(payload: RunNodePayload, signal: AbortSignal): Promise<void> {
    const { tenantId, executionId, runId } = payload;
    const db = this.#database.db;
    const start = await db.transaction().execute(async (trx) => {
      const execution = await this.#repo.lockExecution(trx, tenantId, executionId);
      const run = await this.#repo.findNodeRun(trx, tenantId, runId);
      // Paused: the run stays queued and resume enqueues it again. Finished runs never run twice.
      if (execution?.status !== 'running' || !run || (run.status !== 'queued' && run.status !== 'running')) return null;
      const now = this.#clock.now();
      const startedAt = run.started_at ?? now;
      if (run.status === 'queued') {
        await this.#repo.updateNodeRun(trx, tenantId, runId, { status: 'running', started_at: startedAt, updated_at: now });
      }
      const runs = await this.#repo.nodeRuns(trx, tenantId, executionId);
      return { execution, run: { ...run, started_at: startedAt }, runs, definition: await this.#definition(trx, execution) };
    });
    if (!start) return;
    const { execution, run, runs, definition } = start;
    const node = definition.nodes.find((n) => n.id === run.node_id);
    if (!node) return;
    const scope = scopeOf(execution, runs);
    const rawConfig = node.config ?? {};
    let outcome: Awaited<ReturnType<NodeHandler>> | undefined;
    let failure: string | undefined;
    try {
      const handler = this.#handlers[node.type];
      if (!handler) throw new Error(`Node "${node.id}": node type "${node.type}" is not available yet`);
      const config = Object.fromEntries(Object.entries(rawConfig).map(([k, v]) => [k, RAW_KEYS.has(k) ? v : resolveReferences(v, scope)]));
      const timeoutMs = node.type === 'delay' ? undefined : node.timeout_seconds ? node.timeout_seconds * 1000 : undefined;
      const nodeSignal = timeoutMs ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : signal;
      const running = handler({
        node,
        config,
        rawConfig,
        scope,
        startedAt: run.started_at,
        now: this.#clock.now(),
        idempotencyKey: `${execution.id}:${node.id}:${run.attempt}`,
        signal: nodeSignal,
      });
      outcome = timeoutMs ? await withTimeout(running, timeoutMs, node.id) : await running;
    } catch (error) {
      if (signal.aborted) throw error; // the worker is stopping: the job runs again later
      failure = error instanceof Error ? error.message : String(error);
    }
    await db.transaction().execute(async (trx) => {
      const current = await this.#repo.lockExecution(trx, tenantId, executionId);
      const again = await this.#repo.findNodeRun(trx, tenantId, runId);
      if (!current || !again || again.status !== 'running') return; // cancelled or ended meanwhile
      const now = this.#clock.now();
      if (outcome?.kind === 'wait') {
        await this.#jobs.enqueue(trx, RUN_NODE_JOB, payload, { runAt: outcome.until, uniqueKey: `wf:${runId}:t${outcome.until}`, tenantId });
        return;
      }
      if (failure !== undefined) {
        await this.#nodeFailed(trx, current, again, node, failure, definition, now);
        return;
      }
      if (outcome?.kind !== 'completed') return;
      await this.#repo.updateNodeRun(trx, tenantId, runId, { status: 'completed', output: JSON.stringify(outcome.output ?? null), completed_at: now, updated_at: now });
      await this.#repo.log(trx, tenantId, executionId, 'node_completed', '', now, node.id);
      let next = current;
      if (outcome.setVariable) {
        const vars = { ...parseJson<Record<string, unknown>>(current.vars, {}), [outcome.setVariable.name]: outcome.setVariable.value };
        next = { ...current, vars: JSON.stringify(vars) };
        await this.#repo.updateExecution(trx, tenantId, executionId, { vars: next.vars, updated_at: now });
      }
      if (outcome.end) {
        await this.#repo.closeOpenRuns(trx, tenantId, executionId, 'skipped', `ended by node "${node.id}"`, now);
        await this.#finish(trx, next, outcome.end.status, outcome.end.output, now, outcome.end.status === 'failed' ? `Ended by node "${node.id}"` : null, node.id);
        return;
      }
      if (next.status === 'running') await this.#advance(trx, next, definition, now);
    });
  }

  async #nodeFailed(trx: Executor, execution: ExecutionRow, run: NodeRunRow, node: WorkflowNode, message: string, definition: WorkflowDefinition, now: number): Promise<void> {
    const { tenant_id: tenantId, id } = execution;
    const maxAttempts = node.retry?.max_attempts ?? 1;
    if (run.attempt < maxAttempts) {
      const attempt = run.attempt + 1;
      await this.#repo.updateNodeRun(trx, tenantId, run.id, { status: 'queued', attempt, error: message, started_at: null, updated_at: now });
      await this.#repo.log(trx, tenantId, id, 'node_retry', message, now, node.id);
      await this.#enqueueRun(trx, execution, run.id, attempt, now + (node.retry?.backoff_seconds ?? 0) * 1000);
      return;
    }
    await this.#repo.updateNodeRun(trx, tenantId, run.id, { status: 'failed', error: message, completed_at: now, updated_at: now });
    await this.#repo.log(trx, tenantId, id, 'node_failed', message, now, node.id);
    const onFailure = definition.error_handling?.on_failure ?? 'fail';
    if (onFailure === 'continue') {
      if (execution.status === 'running') await this.#advance(trx, execution, definition, now);
      return;
    }
    if (onFailure === 'pause') {
      const next = { ...execution, status: 'paused' as const, paused_reason: 'node_failed', paused_at: now, failed_node_id: node.id, error: message, updated_at: now };
      await this.#repo.updateExecution(trx, tenantId, id, next);
      await this.#recordPaused(trx, next, now);
      return;
    }
    await this.#repo.closeOpenRuns(trx, tenantId, id, 'cancelled', `node "${node.id}" failed`, now);
    await this.#finish(trx, execution, 'failed', null, now, message, node.id);
  }

  /** Records the results of the pure decision: skipped runs, newly ready runs (with their jobs), or the end. */
  async #advance(trx: Executor, execution: ExecutionRow, definition: WorkflowDefinition, now: number): Promise<void> {
    const runs = await this.#repo.nodeRuns(trx, execution.tenant_id, execution.id);
    const states: Record<string, NodeState> = {};
    for (const run of runs) states[run.node_id] = run.status;
    const scope = scopeOf(execution, runs);
    const runIfErrors: string[] = [];
    const decision = nextSteps(definition.nodes, states, (node) => {
      try {
        return evalCel(node.run_if!, scope) === true;
      } catch (error) {
        runIfErrors.push(`Node "${node.id}": run_if "${node.run_if}" failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        return false;
      }
    });
    if (runIfErrors.length > 0) {
      await this.#repo.closeOpenRuns(trx, execution.tenant_id, execution.id, 'cancelled', 'run_if failed', now);
      await this.#finish(trx, execution, 'failed', null, now, runIfErrors[0]!, null);
      return;
    }
    const rows: NodeRunRow[] = [
      ...decision.skipped.map((s) => newRun(execution, s.id, 'skipped', now, s.reason)),
      ...decision.ready.map((id) => newRun(execution, id, 'queued', now, null)),
    ];
    await this.#repo.insertNodeRuns(trx, rows);
    for (const row of rows) if (row.status === 'queued') await this.#enqueueRun(trx, execution, row.id, 1, now);
    if (decision.done && decision.ready.length === 0) {
      const all = [...runs, ...rows];
      const anyFailed = all.some((r) => r.status === 'failed');
      const onFailure = definition.error_handling?.on_failure ?? 'fail';
      const status = anyFailed && onFailure !== 'continue' ? 'failed' : 'completed';
      await this.#finish(trx, execution, status, finalOutput(definition.nodes, all), now, status === 'failed' ? 'A node failed' : null, null);
    }
  }

  async #finish(trx: Executor, execution: ExecutionRow, status: 'completed' | 'failed', output: unknown, now: number, error: string | null, failedNodeId: string | null): Promise<void> {
    const { tenant_id: tenantId, id } = execution;
    await this.#repo.updateExecution(trx, tenantId, id, {
      status,
      final_output: JSON.stringify(output ?? null),
      finished_at: now,
      updated_at: now,
      error,
      failed_node_id: failedNodeId,
    });
    await this.#repo.log(trx, tenantId, id, status, error ?? '', now);
    const base = { execution_id: id, workflow_id: execution.workflow_id, workflow_name: execution.workflow_name };
    if (status === 'completed') {
      await this.#events.record(trx, {
        tenantId,
        name: 'dag.execution.completed',
        data: { ...base, status, duration_seconds: Math.round((now - execution.started_at) / 1000), final_output: output ?? null },
      });
    } else {
      await this.#events.record(trx, { tenantId, name: 'dag.execution.failed', data: { ...base, status, error: error ?? 'failed', failed_node_id: failedNodeId } });
    }
  }

  async #recordPaused(trx: Executor, execution: ExecutionRow, now: number): Promise<void> {
    await this.#repo.log(trx, execution.tenant_id, execution.id, 'paused', execution.paused_reason ?? '', now);
    await this.#events.record(trx, {
      tenantId: execution.tenant_id,
      name: 'dag.execution.paused',
      data: { execution_id: execution.id, workflow_id: execution.workflow_id, workflow_name: execution.workflow_name, status: 'paused', paused_reason: execution.paused_reason },
    });
  }

  async #enqueueRun(trx: Executor, execution: ExecutionRow, runId: string, attempt: number, runAt: number): Promise<void> {
    const payload: RunNodePayload = { tenantId: execution.tenant_id, executionId: execution.id, runId };
    // One key per run and attempt: a second enqueue of the same step is a no-op.
    await this.#jobs.enqueue(trx, RUN_NODE_JOB, payload, { runAt, uniqueKey: `wf:${runId}:a${attempt}:${runAt}`, tenantId: execution.tenant_id });
  }

  async #control(auth: AuthContext, id: string, change: (trx: Executor, execution: ExecutionRow, now: number) => Promise<ExecutionRow>): Promise<ExecutionRow> {
    requireFeature(auth, 'workflows');
    requireCreate(auth, 'workflow executions');
    return this.#database.db.transaction().execute(async (trx) => {
      const execution = await this.#repo.lockExecution(trx, auth.tenant.id, id);
      if (!execution) throw executionNotFound();
      return change(trx, execution, this.#clock.now());
    });
  }

  /** The version an execution started on (immutable, so cached). */
  async #definition(db: Executor, execution: ExecutionRow): Promise<WorkflowDefinition> {
    const key = `${execution.workflow_id}:${execution.workflow_version}`;
    const cached = this.#definitions.get(key);
    if (cached) return cached;
    const text = await this.#repo.findVersion(db, execution.tenant_id, execution.workflow_id, execution.workflow_version);
    const parsed = parseJson<WorkflowDefinition>(text, { nodes: [] });
    if (this.#definitions.size > 1000) this.#definitions.clear();
    this.#definitions.set(key, parsed);
    return parsed;
  }
}

function newRun(execution: ExecutionRow, nodeId: string, status: 'queued' | 'skipped', now: number, reason: string | null): NodeRunRow {
  return {
    id: newId(now),
    tenant_id: execution.tenant_id,
    execution_id: execution.id,
    node_id: nodeId,
    status,
    attempt: 1,
    output: null,
    error: null,
    reason,
    started_at: null,
    completed_at: status === 'skipped' ? now : null,
    updated_at: now,
  };
}

/** The variables expressions see: trigger data, node results so far, variables, the execution id. */
export function scopeOf(execution: ExecutionRow, runs: readonly NodeRunRow[]): ExpressionScope {
  const nodes: ExpressionScope['nodes'] = {};
  for (const run of runs) nodes[run.node_id] = { status: run.status, output: parseJson(run.output, null) };
  return { trigger: parseJson(execution.trigger_data, {}), nodes, vars: parseJson(execution.vars, {}), execution: { id: execution.id } };
}

/** Without an `end` node: the output of the one completed sink, or all completed sinks' outputs by id. */
function finalOutput(nodes: readonly WorkflowNode[], runs: readonly NodeRunRow[]): unknown {
  const upstream = new Set(nodes.flatMap((n) => n.depends_on ?? []));
  const sinks = runs.filter((r) => r.status === 'completed' && !upstream.has(r.node_id));
  if (sinks.length === 1) return parseJson(sinks[0]!.output, null);
  return Object.fromEntries(sinks.map((r) => [r.node_id, parseJson(r.output, null)]));
}

function withTimeout<T>(promise: Promise<T>, ms: number, nodeId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Node "${nodeId}" timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
