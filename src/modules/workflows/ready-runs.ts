import type { WorkflowDefinition } from './engine/types.ts';
import type { Execution, NodeRun } from './workflows.repository.ts';

/** What the transaction that made a run ready knew of its execution, as a read right after its commit would. */
export interface ReadySnapshot {
  execution: Execution;
  definition: WorkflowDefinition;
  runs: readonly NodeRun[];
}

/**
 * Snapshots of the runs this process just made ready (queued with their jobs), for the jobs that
 * run them here: a control node evaluates its expression from the snapshot instead of opening a
 * transaction to read the execution and its runs again (three reads and a commit per step on
 * PostgreSQL). A snapshot is only as fresh as a read before the evaluation would be; the commit
 * still locks the execution and checks the run is the one read (node-runner.ts), as it does after
 * a read. Taken once: a retried job reads afresh. Bounded: the snapshots of runs another process
 * runs (or whose transaction rolled back) are dropped oldest first.
 */
export class ReadyRuns {
  readonly #byRun = new Map<string, { snapshot: ReadySnapshot; at: number }>();
  readonly #limit: number;
  readonly #maxAgeMs: number;

  /** At most `limit` runs, none kept longer than `maxAgeMs` (an API-only process never takes its own). */
  constructor(options: { limit?: number; maxAgeMs?: number } = {}) {
    this.#limit = options.limit ?? 2_000;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
  }

  remember(snapshot: ReadySnapshot, runIds: readonly string[], now = performance.now()): void {
    for (const id of runIds) this.#byRun.set(id, { snapshot, at: now });
    for (const [id, entry] of this.#byRun) {
      if (this.#byRun.size <= this.#limit && now - entry.at <= this.#maxAgeMs) break;
      this.#byRun.delete(id);
    }
  }

  take(runId: string): ReadySnapshot | undefined {
    const entry = this.#byRun.get(runId);
    this.#byRun.delete(runId);
    return entry?.snapshot;
  }

  get size(): number {
    return this.#byRun.size;
  }
}
