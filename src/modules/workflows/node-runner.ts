import { isDeepStrictEqual } from 'node:util';
import type { Database } from '../../db/database.ts';
import type { DiedJob, RunningJob } from '../../jobs/job-types.ts';
import type { Executor } from '../../db/executor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { type ActingPrincipals, PrincipalUnavailable } from './acting-principal.ts';
import type { ExpressionEvaluator } from './engine/expression-evaluator.ts';
import type { WorkflowNode } from './engine/types.ts';
import { type ExecutionEngine, type RunNodePayload, type StepLog, scopeOf } from './execution-engine.ts';
import { toPlain } from './engine/expressions.ts';
import { type NodeHandler, type NodeOutcome, nodeFailure, resolveConfig } from './node-handlers.ts';
import type { ReadyRuns } from './ready-runs.ts';
import { type ChainVerdict, runChain } from './step-chain.ts';
import type { Execution, NodeRun, WorkflowsRepository } from './workflows.repository.ts';

/** The part of the workflows repository the runner needs: it locks the execution, reads and marks node runs. */
export type RunRows = Pick<WorkflowsRepository, 'findNodeRun' | 'lockExecution' | 'nodeRuns' | 'updateNodeRun'>;

/**
 * Control nodes that evaluate user expressions (in the sandbox) and touch nothing else: they run
 * from a snapshot, and their result commits in one transaction with the job if the run is still
 * the one read.
 */
const EXPRESSION_TYPES = new Set(['condition', 'switch', 'transform', 'filter', 'aggregate']);
/** Control nodes with no user code and no I/O: they run inside the transaction that records them (one round trip). */
const PLAIN_TYPES = new Set(['parallel', 'join', 'set_variable', 'end']);

/** What the first transaction found of a run; `claimed` when it is a node with I/O now marked running for this job. */
interface Snapshot {
  execution: Execution;
  run: NodeRun;
  runs: NodeRun[];
  node: WorkflowNode;
  claimed: boolean;
}

/** How a run's turn ends when it does not run its handler through the claim: skipped, failed by `run_if`, or done inline. */
type Decision =
  | { kind: 'skip'; reason: string }
  | { kind: 'run_if_failed'; message: string }
  | { kind: 'result'; outcome?: NodeOutcome; failure?: string };

/**
 * The `workflows.run_node` job. A node with side effects: claim the run in one transaction (only
 * the job that holds it may run it), run its handler outside any transaction, then record the
 * result in a second transaction that also completes the job (`completeIn`). A worker killed
 * mid-node leaves the job, which runs the node again after its lease; a finished run is never run
 * again; a run that lost its job to another worker cannot commit.
 *
 * No user code runs inside a transaction (on SQLite one transaction holds the process's only
 * connection): `run_if` and the control nodes' expressions are evaluated in the expression sandbox
 * from what the first transaction read, and only their result is written, after checking the run
 * is still queued. Control nodes without user code (`parallel`, `join`, `set_variable`, `end`) run
 * inside the transaction that records them.
 */
export class NodeRunner {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #engine: ExecutionEngine;
  readonly #workflows: RunRows;
  readonly #handlers: Record<string, NodeHandler>;
  readonly #expressions: ExpressionEvaluator;
  readonly #principals: ActingPrincipals;
  readonly #ready: ReadyRuns | undefined;

  constructor(deps: {
    database: Database;
    clock: Clock;
    engine: ExecutionEngine;
    /** The execution and node-run rows it locks, reads and marks. */
    workflows: RunRows;
    handlers: Record<string, NodeHandler>;
    expressions: ExpressionEvaluator;
    principals: ActingPrincipals;
    /** Snapshots the engine kept of the runs it just made ready in this process (spares their first read). */
    ready?: ReadyRuns;
  }) {
    this.#ready = deps.ready;
    this.#database = deps.database;
    this.#clock = deps.clock;
    this.#engine = deps.engine;
    this.#workflows = deps.workflows;
    this.#handlers = deps.handlers;
    this.#expressions = deps.expressions;
    this.#principals = deps.principals;
  }

  async run(job: RunningJob<RunNodePayload>): Promise<void> {
    let snapshot = this.#prepared(job) ?? (await this.#begin(job));
    if (!snapshot) return;
    if (gated(snapshot)) {
      const decision = await this.#runIf(snapshot, job.signal);
      if (decision) return this.#commit(job, snapshot, decision);
      if (PLAIN_TYPES.has(snapshot.node.type))
        return this.#commit(job, snapshot, { kind: 'result', ...(await this.#attemptOn(snapshot, job)) });
    }
    if (EXPRESSION_TYPES.has(snapshot.node.type))
      return this.#commit(job, snapshot, { kind: 'result', ...(await this.#attemptOn(snapshot, job)) });
    if (!snapshot.claimed) {
      snapshot = await this.#claim(job);
      if (!snapshot) return;
    }
    const claimed = await this.#attempt(snapshot.execution, snapshot.run, snapshot.runs, snapshot.node, job.signal);
    await this.#record(job, snapshot.node, claimed.outcome, claimed.failure);
  }

  /**
   * The snapshot the transaction that made this run ready left (ready-runs.ts), for a node that
   * evaluates from a snapshot anyway (an expression node, or one with a `run_if` to decide): then
   * no first transaction. Null for anything else, or for a job's retry, which reads afresh.
   */
  #prepared(job: RunningJob<RunNodePayload>): Snapshot | null {
    const { tenantId, executionId, runId } = job.payload;
    const ready = this.#ready?.take(runId);
    if (!ready || job.attempt !== 1) return null;
    const { execution, runs, definition } = ready;
    if (execution.tenantId !== tenantId || execution.id !== executionId || execution.status !== 'running') return null;
    const run = runs.find((r) => r.id === runId);
    const node = run && definition.nodes.find((n) => n.id === run.nodeId);
    if (!run || !node || run.status !== 'queued') return null;
    const snapshot: Snapshot = { execution, run, runs: [...runs], node, claimed: false };
    return gated(snapshot) || EXPRESSION_TYPES.has(node.type) ? snapshot : null;
  }

  /**
   * The first transaction: null when the run is not this job's, or when it was a plain control node
   * run and recorded right here; otherwise what was read, with a node that does I/O (and has no
   * `run_if` to decide first) already marked running for this job. No user code runs in it.
   */
  async #begin(job: RunningJob<RunNodePayload>): Promise<Snapshot | null> {
    const { tenantId, executionId, runId } = job.payload;
    return this.#database.db.transaction().execute(async (trx) => {
      const execution = await this.#workflows.lockExecution(trx, tenantId, executionId);
      const run = await this.#workflows.findNodeRun(trx, tenantId, runId);
      if (!runnable(execution, run, job)) return null;
      const definition = await this.#engine.definition(trx, execution!);
      const node = definition.nodes.find((n) => n.id === run!.nodeId);
      if (!node) return null;
      const runs = await this.#workflows.nodeRuns(trx, tenantId, executionId);
      const snapshot: Snapshot = { execution: execution!, run: run!, runs, node, claimed: false };
      if (gated(snapshot) || EXPRESSION_TYPES.has(node.type)) return snapshot;
      const now = this.#clock.now();
      const running = {
        ...run!,
        status: 'running' as const,
        startedAt: run!.startedAt ?? now,
        runnerJobId: job.id,
        updatedAt: now,
      };
      const known = runs.map((r) => (r.id === runId ? running : r));
      if (PLAIN_TYPES.has(node.type)) {
        // Queued to its result in this one transaction: one write, not two.
        const { outcome, failure } = await this.#attempt(execution!, running, known, node, job.signal);
        await job.completeIn(trx);
        if (failure !== undefined || !outcome || outcome.kind === 'wait' || outcome.kind === 'checkpoint')
          await this.#engine.nodeFailed(trx, execution!, running, node, failure ?? 'no outcome', definition);
        else await this.#engine.recordOutcome(trx, execution!, running, node, outcome, definition, known);
        return null;
      }
      await this.#workflows.updateNodeRun(trx, tenantId, runId, {
        status: 'running',
        startedAt: running.startedAt,
        runnerJobId: job.id,
        updatedAt: now,
      });
      return { execution: execution!, run: running, runs: known, node, claimed: true };
    });
  }

  /** Runs the handler of a snapshot's run (not yet written as running) outside any transaction. */
  #attemptOn({ execution, run, runs, node }: Snapshot, job: RunningJob<RunNodePayload>) {
    const running = {
      ...run,
      status: 'running' as const,
      startedAt: run.startedAt ?? this.#clock.now(),
      runnerJobId: job.id,
    };
    return this.#attempt(
      execution,
      running,
      runs.map((r) => (r.id === run.id ? running : r)),
      node,
      job.signal,
    );
  }

  /**
   * The run's job was failed with `process_died` (its runs killed their process twice): the node
   * fails without its retries, and `on_failure` decides for the execution (fail, pause, continue).
   * Called in the transaction that fails the job.
   */
  async processDied(trx: Executor, job: DiedJob<RunNodePayload>): Promise<void> {
    const { tenantId, executionId, runId } = job.payload ?? ({} as Partial<RunNodePayload>);
    if (!tenantId || !executionId || !runId) return;
    const execution = await this.#workflows.lockExecution(trx, tenantId, executionId);
    const run = await this.#workflows.findNodeRun(trx, tenantId, runId);
    if (!execution || !run || (execution.status !== 'running' && execution.status !== 'paused')) return;
    if (run.status !== 'queued' && !(run.status === 'running' && run.runnerJobId === job.id)) return;
    const definition = await this.#engine.definition(trx, execution);
    const node = definition.nodes.find((n) => n.id === run.nodeId);
    if (!node) return;
    const failed = { ...run, startedAt: run.startedAt ?? this.#clock.now(), runnerJobId: job.id };
    await this.#engine.nodeFailed(trx, execution, failed, node, `Node "${node.id}": ${job.error}`, definition, {
      retry: false,
    });
  }

  /** Null when the node should run; otherwise it is skipped, or its `run_if` failed (which fails the execution). */
  async #runIf({ execution, runs, node }: Snapshot, signal: AbortSignal): Promise<Decision | null> {
    try {
      const holds = (await this.#expressions.cel(node.run_if!, scopeOf(execution, runs), signal)) === true;
      return holds ? null : { kind: 'skip', reason: 'run_if is false' };
    } catch (error) {
      if (signal.aborted) throw error; // the worker is stopping: the job runs again later
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      return { kind: 'run_if_failed', message: `Node "${node.id}": run_if "${node.run_if}" failed: ${message}` };
    }
  }

  /** Runs the handler outside any transaction; its failure is the node's, unless the worker is stopping. */
  async #attempt(
    execution: Execution,
    run: NodeRun,
    runs: NodeRun[],
    node: WorkflowNode,
    signal: AbortSignal,
  ): Promise<{ outcome?: NodeOutcome; failure?: string }> {
    try {
      return { outcome: await this.#invoke(execution, run, runs, node, signal) };
    } catch (error) {
      if (signal.aborted) throw error; // the worker is stopping: the job runs again later
      return { failure: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Writes a decision taken from a snapshot, with the job's completion, if the run is still the one
   * read (queued, same attempt); otherwise another job took it or the execution moved on, and
   * nothing is written (a pure evaluation has nothing to undo).
   */
  async #commit(job: RunningJob<RunNodePayload>, snapshot: Snapshot, decision: Decision): Promise<void> {
    const { tenantId, executionId, runId } = job.payload;
    const { node } = snapshot;
    const chain = await this.#chainAfter(job, snapshot, decision);
    await this.#database.db.transaction().execute(async (trx) => {
      const locked = await this.#lockWithRuns(trx, tenantId, executionId, runId);
      if (!locked || !runnable(locked.execution, locked.run, job) || locked.run!.attempt !== snapshot.run.attempt)
        return;
      const { execution, run } = locked;
      const definition = await this.#engine.definition(trx, execution!);
      if (
        chain &&
        sameRuns(locked.runs, snapshot.runs) &&
        isDeepStrictEqual(execution!.vars, snapshot.execution.vars)
      ) {
        // The runs the chain started from are still the current ones: its steps stand as evaluated.
        await job.completeIn(trx);
        await this.#engine.recordChain(trx, chain.run, chain.log, chain.steps, definition);
        return;
      }
      const now = this.#clock.now();
      const running = {
        ...run!,
        status: 'running' as const,
        startedAt: run!.startedAt ?? now,
        runnerJobId: job.id,
        updatedAt: now,
      };
      // Read under the execution's lock, so current: the next-step decision needs no read of its own.
      const known = locked.runs.map((r) => (r.id === runId ? running : r));
      await job.completeIn(trx);
      if (decision.kind === 'skip')
        await this.#engine.skipRun(trx, execution!, running, node, decision.reason, definition, known);
      else if (decision.kind === 'run_if_failed')
        await this.#engine.failExecution(trx, execution!, decision.message, 'run_if failed', definition);
      else if (
        decision.failure !== undefined ||
        !decision.outcome ||
        decision.outcome.kind === 'wait' ||
        decision.outcome.kind === 'checkpoint'
      ) {
        await this.#engine.nodeFailed(trx, execution!, running, node, decision.failure ?? 'no outcome', definition);
      } else await this.#engine.recordOutcome(trx, execution!, running, node, decision.outcome, definition, known);
    });
  }

  /**
   * The control steps this run's result makes ready, run from the same snapshot (step-chain.ts) so
   * they commit with it; null when the decision ends the run any other way (a failure, an `end`,
   * effects to write) or nothing could be chained (then the run commits alone, as before).
   */
  async #chainAfter(job: RunningJob<RunNodePayload>, snapshot: Snapshot, decision: Decision) {
    const at = this.#clock.now();
    const started = { ...snapshot.run, startedAt: snapshot.run.startedAt ?? at, runnerJobId: job.id, updatedAt: at };
    let run: NodeRun;
    let log: StepLog;
    let execution = snapshot.execution;
    if (decision.kind === 'skip') {
      run = { ...started, status: 'skipped', reason: decision.reason, completedAt: at };
      log = { nodeId: run.nodeId, kind: 'node_skipped', message: decision.reason, at };
    } else if (
      decision.kind === 'result' &&
      decision.failure === undefined &&
      decision.outcome?.kind === 'completed' &&
      !decision.outcome.end &&
      !decision.outcome.effects
    ) {
      const { output, setVariable } = decision.outcome;
      run = { ...started, status: 'completed', output: toPlain(output ?? null), error: null, completedAt: at };
      log = { nodeId: run.nodeId, kind: 'node_completed', message: '', at };
      if (setVariable)
        execution = {
          ...execution,
          vars: toPlain({ ...execution.vars, [setVariable.name]: setVariable.value }) as Record<string, unknown>,
        };
    } else return null;
    const definition = await this.#engine.definition(this.#database.db, execution);
    const steps = await runChain(
      { execution, definition, runs: snapshot.runs.map((r) => (r.id === run.id ? run : r)) },
      (current, running, runs, node) => this.#chained(job, { execution: current, run: running, runs, node }),
      { now: () => this.#clock.now(), stop: () => job.signal.aborted },
    );
    if (steps.added.length === 0) return null;
    if (execution !== snapshot.execution) steps.varsChanged = true;
    return { run, log, steps };
  }

  /** One chained step: its `run_if`, then its handler; null leaves it to a job of its own (which records a failure). */
  async #chained(job: RunningJob<RunNodePayload>, step: Omit<Snapshot, 'claimed'>): Promise<ChainVerdict> {
    if (step.node.run_if !== undefined) {
      const decision = await this.#runIf({ ...step, claimed: false }, job.signal);
      if (decision?.kind === 'skip') return { kind: 'skipped', reason: decision.reason };
      if (decision) return null;
    }
    const { outcome, failure } = await this.#attempt(step.execution, step.run, step.runs, step.node, job.signal);
    if (failure !== undefined || outcome?.kind !== 'completed' || outcome.end || outcome.effects) return null;
    return {
      kind: 'completed',
      output: outcome.output,
      ...(outcome.setVariable ? { setVariable: outcome.setVariable } : {}),
    };
  }

  /**
   * Locks the execution, then reads all its runs in one statement (the run itself among them);
   * null when the execution is gone. The caller decides what its status allows.
   */
  async #lockWithRuns(trx: Executor, tenantId: string, executionId: string, runId: string) {
    const execution = await this.#workflows.lockExecution(trx, tenantId, executionId);
    if (!execution) return null;
    const runs = await this.#workflows.nodeRuns(trx, tenantId, executionId);
    return { execution, runs, run: runs.find((r) => r.id === runId) ?? null };
  }

  /** Marks the run `running` for this job (a node with I/O whose `run_if` held); null when it is no longer this job's. */
  async #claim(job: RunningJob<RunNodePayload>): Promise<Snapshot | null> {
    const { tenantId, executionId, runId } = job.payload;
    return this.#database.db.transaction().execute(async (trx) => {
      const execution = await this.#workflows.lockExecution(trx, tenantId, executionId);
      const run = await this.#workflows.findNodeRun(trx, tenantId, runId);
      if (!runnable(execution, run, job)) return null;
      const definition = await this.#engine.definition(trx, execution!);
      const node = definition.nodes.find((n) => n.id === run!.nodeId);
      if (!node) return null;
      const now = this.#clock.now();
      const running = {
        ...run!,
        status: 'running' as const,
        startedAt: run!.startedAt ?? now,
        runnerJobId: job.id,
        updatedAt: now,
      };
      await this.#workflows.updateNodeRun(trx, tenantId, runId, {
        status: 'running',
        startedAt: running.startedAt,
        runnerJobId: job.id,
        updatedAt: now,
      });
      const runs = (await this.#workflows.nodeRuns(trx, tenantId, executionId)).map((r) =>
        r.id === runId ? running : r,
      );
      return { execution: execution!, run: running, runs, node, claimed: true };
    });
  }

  async #invoke(
    execution: Execution,
    run: NodeRun,
    runs: NodeRun[],
    node: WorkflowNode,
    signal: AbortSignal,
  ): Promise<NodeOutcome> {
    const handler = this.#handlers[node.type];
    if (!handler) throw new Error(`Node "${node.id}": node type "${node.type}" is not available`);
    const scope = scopeOf(execution, runs);
    const rawConfig = node.config ?? {};
    const maxReferenceBytes = this.#expressions.limits.maxResultBytes;
    const config = resolveConfig(rawConfig, scope, maxReferenceBytes);
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
      maxReferenceBytes,
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
        if (error instanceof PrincipalUnavailable)
          throw nodeFailure(node.id, 'forbidden', `the execution cannot act: ${error.message}`);
        throw error;
      }
    };
    return () => {
      resolved ??= resolve();
      return resolved;
    };
  }

  async #record(
    job: RunningJob<RunNodePayload>,
    node: WorkflowNode,
    outcome: NodeOutcome | undefined,
    failure: string | undefined,
  ): Promise<void> {
    const { tenantId, executionId, runId } = job.payload;
    await this.#database.db.transaction().execute(async (trx) => {
      const locked = await this.#lockWithRuns(trx, tenantId, executionId, runId);
      const again = locked?.run;
      if (!locked || !again || again.status !== 'running' || again.runnerJobId !== job.id) return; // cancelled or ended meanwhile
      const current = locked.execution;
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
        await this.#workflows.updateNodeRun(trx, tenantId, runId, {
          runnerJobId: timerJob,
          updatedAt: this.#clock.now(),
        });
        return;
      }
      if (outcome.kind === 'checkpoint') {
        await this.#engine.checkpoint(trx, current, again, node, outcome);
        return;
      }
      await this.#engine.recordOutcome(trx, current, again, node, outcome, definition, locked.runs);
    });
  }
}

/**
 * Whether this job may run the run: the execution is running (paused: the run stays queued and
 * resume enqueues it again) and the run is queued, or running for this very job (its own retry
 * after a crash, a timer or a loop's next batch). Finished runs never run twice.
 */
/** `run_if` decides once, when the run first starts (not on its retries, timers or loop batches). */
function gated({ node, run }: Snapshot): boolean {
  return node.run_if !== undefined && run.status === 'queued' && run.attempt === 1;
}

/** The same runs in the same states (a run's output is written once, with its final state). */
function sameRuns(current: readonly NodeRun[], read: readonly NodeRun[]): boolean {
  if (current.length !== read.length) return false;
  const byId = new Map(read.map((r) => [r.id, r]));
  return current.every((r) => {
    const was = byId.get(r.id);
    return was !== undefined && was.status === r.status && was.attempt === r.attempt;
  });
}

function runnable(execution: Execution | undefined, run: NodeRun | null, job: RunningJob<RunNodePayload>): boolean {
  if (execution?.status !== 'running' || !run) return false;
  return run.status === 'queued' || (run.status === 'running' && run.runnerJobId === job.id);
}

function withTimeout<T>(promise: Promise<T>, ms: number, nodeId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Node "${nodeId}" timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
