import type { Database } from '../../db/database.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { type ActingPrincipals, PrincipalUnavailable } from './acting-principal.ts';
import { resolveReferences } from './engine/expressions.ts';
import type { WorkflowNode } from './engine/types.ts';
import { type ExecutionEngine, type RunNodePayload, scopeOf } from './execution-engine.ts';
import { type NodeHandler, type NodeOutcome, nodeFailure, RAW_KEYS } from './node-handlers.ts';
import type { Execution, NodeRun } from './workflows.repository.ts';

/** Node types whose handlers do no I/O and finish at once (bounded by the expression limits). */
const INLINE_TYPES = new Set(['condition', 'switch', 'parallel', 'join', 'transform', 'filter', 'aggregate', 'set_variable', 'end']);

/**
 * The `workflows.run_node` job: claim the node run in one transaction (only the job that holds it
 * may run it), run its handler outside any transaction, then record the result in a second
 * transaction that also completes the job (`completeIn`). A worker killed mid-node leaves the job,
 * which runs the node again after its lease; a finished run is never run again; a run that lost its
 * job to another worker cannot commit.
 */
export class NodeRunner {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #engine: ExecutionEngine;
  readonly #handlers: Record<string, NodeHandler>;
  readonly #principals: ActingPrincipals;

  constructor(deps: { database: Database; clock: Clock; engine: ExecutionEngine; handlers: Record<string, NodeHandler>; principals: ActingPrincipals }) {
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#engine = deps.engine;
    this.#handlers = deps.handlers;
    this.#principals = deps.principals;
  }

  async run(job: RunningJob<RunNodePayload>): Promise<void> {
    const start = await this.#claim(job);
    if (!start) return;
    const { execution, run, runs, node } = start;
    let outcome: NodeOutcome | undefined;
    let failure: string | undefined;
    try {
      outcome = await this.#invoke(execution, run, runs, node, job.signal);
    } catch (error) {
      if (job.signal.aborted) throw error; // the worker is stopping: the job runs again later
      failure = error instanceof Error ? error.message : String(error);
    }
    await this.#record(job, node, outcome, failure);
  }

  /**
   * Marks the run `running` for this job and returns what the handler needs; null when it is not
   * this job's to run, or when it already ran inline. Control nodes that touch nothing outside the
   * process (CEL, JSONata, variables, joins) run right here, inside the claiming transaction, with
   * their result: half the round trips, and the result commits exactly once with the job.
   */
  async #claim(job: RunningJob<RunNodePayload>) {
    const { tenantId, executionId, runId } = job.payload;
    const repo = this.#engine.repo;
    return this.#database.db.transaction().execute(async (trx) => {
      const execution = await repo.lockExecution(trx, tenantId, executionId);
      const run = await repo.findNodeRun(trx, tenantId, runId);
      // Paused: the run stays queued and resume enqueues it again. Finished runs never run twice;
      // a running run belongs to the job that claimed it (its own retry after a crash may go on).
      if (execution?.status !== 'running' || !run) return null;
      if (run.status !== 'queued' && !(run.status === 'running' && run.runnerJobId === job.id)) return null;
      const definition = await this.#engine.definition(trx, execution);
      const node = definition.nodes.find((n) => n.id === run.nodeId);
      if (!node) return null;
      const now = this.#clock.now();
      const running = { ...run, status: 'running' as const, startedAt: run.startedAt ?? now, runnerJobId: job.id, updatedAt: now };
      const inline = INLINE_TYPES.has(node.type);
      // An inline node's row goes from queued to its result in this transaction: one write, not two.
      if (!inline) await repo.updateNodeRun(trx, tenantId, runId, { status: 'running', startedAt: running.startedAt, runnerJobId: job.id, updatedAt: now });
      const runs = (await repo.nodeRuns(trx, tenantId, executionId)).map((r) => (r.id === runId ? running : r));
      if (!inline) return { execution, run: running, runs, node };
      let outcome: NodeOutcome | undefined;
      let failure: string | undefined;
      try {
        outcome = await this.#invoke(execution, running, runs, node, job.signal);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      await job.completeIn(trx);
      if (failure !== undefined || !outcome || outcome.kind === 'wait' || outcome.kind === 'checkpoint') await this.#engine.nodeFailed(trx, execution, running, node, failure ?? 'no outcome', definition);
      else await this.#engine.recordOutcome(trx, execution, running, node, outcome, definition, runs);
      return null;
    });
  }

  async #invoke(execution: Execution, run: NodeRun, runs: NodeRun[], node: WorkflowNode, signal: AbortSignal): Promise<NodeOutcome> {
    const handler = this.#handlers[node.type];
    if (!handler) throw new Error(`Node "${node.id}": node type "${node.type}" is not available`);
    const scope = scopeOf(execution, runs);
    const rawConfig = node.config ?? {};
    const config = Object.fromEntries(Object.entries(rawConfig).map(([k, v]) => [k, RAW_KEYS.has(k) ? v : resolveReferences(v, scope)]));
    const waits = node.type === 'delay' || node.type === 'schedule' || node.type.startsWith('human_');
    const timeoutMs = !waits && node.timeout_seconds ? node.timeout_seconds * 1000 : undefined;
    const nodeSignal = timeoutMs ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : signal;
    const running = handler({
      node,
      config,
      rawConfig,
      scope,
      startedAt: run.startedAt!,
      checkpoint: run.checkpoint,
      now: this.#clock.now(),
      idempotencyKey: `${execution.id}:${node.id}:0`,
      tenantId: execution.tenantId,
      actingAs: this.#actingAs(execution, node),
      signal: nodeSignal,
    });
    return timeoutMs ? withTimeout(running, timeoutMs, node.id) : running;
  }

  /** The execution's principal, resolved once on first use (only nodes that read documents ask). */
  #actingAs(execution: Execution, node: WorkflowNode): () => Promise<AuthContext> {
    let resolved: Promise<AuthContext> | undefined;
    const resolve = async () => {
      try {
        return await this.#principals.authOf(this.#database.db, execution.tenantId, execution.principal);
      } catch (error) {
        if (error instanceof PrincipalUnavailable) throw nodeFailure(node.id, 'forbidden', `the execution cannot act: ${error.message}`);
        throw error;
      }
    };
    return () => {
      resolved ??= resolve();
      return resolved;
    };
  }

  async #record(job: RunningJob<RunNodePayload>, node: WorkflowNode, outcome: NodeOutcome | undefined, failure: string | undefined): Promise<void> {
    const { tenantId, executionId, runId } = job.payload;
    const repo = this.#engine.repo;
    await this.#database.db.transaction().execute(async (trx) => {
      const current = await repo.lockExecution(trx, tenantId, executionId);
      const again = await repo.findNodeRun(trx, tenantId, runId);
      if (!current || !again || again.status !== 'running' || again.runnerJobId !== job.id) return; // cancelled or ended meanwhile
      // The result and the job's end commit together; a run that lost its job rolls back here.
      await job.completeIn(trx);
      const definition = await this.#engine.definition(trx, current);
      if (failure !== undefined || !outcome) {
        await this.#engine.nodeFailed(trx, current, again, node, failure ?? 'no outcome', definition);
        return;
      }
      if (outcome.kind === 'wait') {
        // A durable timer: the same run, continued by a job due at `until`, which now holds it.
        const timerJob = await this.#engine.enqueueRun(trx, current, runId, again.attempt, outcome.until);
        await repo.updateNodeRun(trx, tenantId, runId, { runnerJobId: timerJob, updatedAt: this.#clock.now() });
        return;
      }
      if (outcome.kind === 'checkpoint') {
        await this.#engine.checkpoint(trx, current, again, node, outcome);
        return;
      }
      await this.#engine.recordOutcome(trx, current, again, node, outcome, definition);
    });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, nodeId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Node "${nodeId}" timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
