import type { Executor } from '../db/executor.ts';

/**
 * Every job kind of the service and its payload: `kind -> payload`. Each module adds its own kinds
 * from its `<module>.jobs.ts` by declaration merging (as it adds its services to `ModuleServices`),
 * so `enqueue(trx, 'processing.extract', payload)` and the handler of that kind are checked against
 * one declaration and "go to definition" on a kind lands on it:
 *
 * ```ts
 * declare module '../../jobs/job-types.ts' {
 *   interface JobPayloads { 'documents.thumbnail': DocumentJobPayload }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each module's jobs file.
export interface JobPayloads {}

/** A job map of any kinds and payloads: for a queue that tests the queue itself, not a module's work. */
export type AnyJobPayloads = Record<string, unknown>;

/** A declared job kind. */
export type JobKind = keyof JobPayloads & string;

/** The payload of a recurring job's run: which tick it is (recurring.ts). */
export interface RecurringTick {
  tick: number;
}

/** The kinds declared with a `RecurringTick` payload: the only ones a recurring job may use. */
export type RecurringKind = { [K in JobKind]: JobPayloads[K] extends RecurringTick ? K : never }[JobKind];

export const JOB_STATES = ['available', 'running', 'completed', 'dead', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface EnqueueOptions {
  /** Earliest start, epoch ms (timers). Default: now. */
  runAt?: number;
  /** Lower runs first. Default 0. */
  priority?: number;
  /** Overrides the definition's maxAttempts. */
  maxAttempts?: number;
  /** While a job with this key is available or running, enqueueing another is a no-op. */
  uniqueKey?: string;
  tenantId?: string | null;
}

/** What a handler sees of the job it runs. */
export interface RunningJob<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  tenantId: string | null;
  /** Its claim priority (lower first); follow-up jobs keep it, so a pipeline keeps its fair-share place. */
  priority: number;
  /** Aborted when the worker stops or the job times out; long handlers should honour it. */
  signal: AbortSignal;
  /**
   * Marks this run completed inside the handler's own transaction, so the work and the job's end
   * commit together: a worker dying between the two can no longer run the work again. Throws
   * JobLostError (rolling the transaction back) when this run no longer holds the job — its lease
   * expired and another worker took it, or it was cancelled.
   */
  completeIn(executor: Executor): Promise<void>;
}

/**
 * One entry of the job catalogue: `<module>.<verb>` -> how to run it. Modules export their
 * definitions from `<module>.jobs.ts`; the composition root hands them all to the worker.
 */
// biome-ignore lint/suspicious/noExplicitAny: a catalogue holds definitions of every payload type; each handler narrows its own.
export interface JobDefinition<P = any> {
  kind: string;
  handler: (job: RunningJob<P>) => Promise<void>;
  /** Total runs before the job is kept as dead. Default 5. */
  maxAttempts?: number;
  /** Exponential backoff with full jitter: min(maxMs, baseMs * 2^(attempt-1)). Defaults 1 s / 1 h. */
  backoff?: { baseMs: number; maxMs: number };
  /** Most jobs of this kind one worker runs at once. Default: the worker's concurrency. */
  concurrency?: number;
  /** A run taking longer fails (and is retried). Default: the lease. */
  timeoutMs?: number;
  /**
   * Called in the transaction that fails a job with `process_died` (its runs killed their process
   * twice in a row; it is not run again), so its module can record the failure where users see it.
   */
  onProcessDied?: (executor: Executor, job: DiedJob<P>) => Promise<void>;
}

/** The definition of one declared kind: its handler receives that kind's payload, no cast. */
export type JobDefinitionOf<K extends JobKind> = JobDefinition<JobPayloads[K]> & { kind: K };

/** Any declared kind's definition (a module's catalogue): the handler is typed by its `kind`. */
export type DeclaredJobDefinition = { [K in JobKind]: JobDefinitionOf<K> }[JobKind];

/** A definition of one declared kind, with its handler typed from `kind` (an identity function). */
export function defineJob<K extends JobKind>(definition: JobDefinitionOf<K>): JobDefinitionOf<K> {
  return definition;
}

/** A job failed with `process_died`, as `onProcessDied` sees it. */
export interface DiedJob<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  tenantId: string | null;
  /** The error kept on the job (`process_died: ...`). */
  error: string;
}

/** Thrown by a handler to fail without further retries (kept as dead at once). */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

/** This run no longer holds its job (lease taken over, cancelled): its work must not commit. */
export class JobLostError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this run (its lease was taken over or it was cancelled)`);
    this.name = 'JobLostError';
  }
}

/** A job as the queue shows it (inspection, admin, tests). Times are epoch ms. */
export interface JobRecord {
  id: string;
  kind: string;
  tenantId: string | null;
  payload: unknown;
  state: JobState;
  priority: number;
  /** Runs started so far (a run released by a stopping worker is not counted). */
  attempts: number;
  maxAttempts: number;
  runAt: number;
  /** The worker running it, or the last one that did. */
  lockedBy: string | null;
  lockedUntil: number | null;
  uniqueKey: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** How one run ended, as reported to `onJobFinished` (metrics). */
export type JobOutcome = 'completed' | 'retried' | 'dead' | 'released' | 'lost' | 'process_died';
