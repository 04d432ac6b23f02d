import type { Compilable } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import type { JobsTable } from '../db/schema.ts';
import { type Clock, systemClock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { EnqueueOptions, JobDefinition, JobPayloads, JobRecord, JobState } from './job-types.ts';
import {
  cancelJob,
  countJobs,
  countWaiting,
  deleteFinished,
  findJob,
  findPendingByUniqueKeys,
  insertJobs,
  type JobRow,
  type NewJobRow,
} from './jobs.repository.ts';

export const DEFAULT_MAX_ATTEMPTS = 5;

export interface JobQueueOptions {
  database: Database;
  clock?: Clock;
  /** The catalogue, for per-kind defaults (maxAttempts) at enqueue time. Workers also register theirs. */
  definitions?: readonly JobDefinition[];
}

/** The kinds of a job map (`JobPayloads` unless a test brings its own). */
type KindOf<Jobs> = keyof Jobs & string;

/** One job to enqueue with `enqueueMany`: a declared kind with that kind's payload. */
export type NewJob<Jobs = JobPayloads> = {
  [K in KindOf<Jobs>]: { kind: K; payload: Jobs[K]; options?: EnqueueOptions };
}[KindOf<Jobs>];

/** A job as the queue stores it, whatever its kind. */
interface AnyNewJob {
  kind: string;
  payload: unknown;
  options?: EnqueueOptions;
}

export interface EnqueueResult {
  id: string;
  /** True when a pending job with the same unique key already existed; `id` is that job's. */
  duplicate: boolean;
}

const CHUNK = 500;

/**
 * The durable job queue's producer side: enqueue inside the caller's transaction (a rolled-back
 * transaction never yields a job), inspect, cancel, count and prune. Workers run the jobs.
 */
export class JobQueue<Jobs = JobPayloads> {
  private readonly database: Database;
  private readonly clock: Clock;
  private readonly maxAttemptsByKind = new Map<string, number>();
  private readonly listeners = new Set<(kind: string) => void>();

  constructor(options: JobQueueOptions) {
    this.database = options.database;
    this.clock = options.clock ?? systemClock;
    this.register(options.definitions ?? []);
  }

  /** Learns per-kind defaults from definitions (a worker calls this with its catalogue). */
  register(definitions: readonly JobDefinition[]): void {
    for (const d of definitions) {
      if (d.maxAttempts !== undefined) this.maxAttemptsByKind.set(d.kind, d.maxAttempts);
    }
  }

  /** Adds a job in the caller's executor (use the transaction of the change that causes it). */
  async enqueue<K extends KindOf<Jobs>>(
    executor: Executor,
    kind: K,
    payload: Jobs[K],
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    const [result] = await this.enqueueMany(executor, [{ kind, payload, options } as NewJob<Jobs>]);
    return result!;
  }

  /**
   * Adds many jobs in a few multi-row statements; results are in input order. `along` is a write
   * of the caller's that must happen in the same transaction (e.g. the rows the jobs will work
   * on): on PostgreSQL it rides in the first insert's statement (one round trip instead of two),
   * on SQLite it runs first, on its own.
   */
  async enqueueMany(
    executor: Executor,
    jobs: readonly NewJob<Jobs>[],
    options: { along?: Compilable & { execute(): Promise<unknown> } } = {},
  ): Promise<EnqueueResult[]> {
    const now = this.clock.now();
    const rows = (jobs as readonly AnyNewJob[]).map((job) => this.row(job, now));
    let along = options.along;
    if (along && (this.database.dialect !== 'postgres' || rows.length === 0)) {
      await along.execute();
      along = undefined;
    }
    const results: EnqueueResult[] = [];
    for (let start = 0; start < rows.length; start += CHUNK) {
      results.push(...(await this.insertChunk(executor, rows.slice(start, start + CHUNK), now, along)));
      along = undefined;
    }
    const due = rows.filter((r, i) => !results[i]!.duplicate && r.run_at <= now);
    if (due.length > 0) {
      // PostgreSQL listeners (other processes) were notified by the insert itself (insertJobs).
      const kinds = new Set(due.map((r) => r.kind));
      for (const kind of kinds) {
        for (const listener of this.listeners) {
          try {
            listener(kind);
          } catch {
            // A wake-up hint must never fail the enqueue.
          }
        }
      }
    }
    return results;
  }

  private async insertChunk(
    executor: Executor,
    rows: (NewJobRow & JobsTable)[],
    now: number,
    along?: Compilable,
  ): Promise<EnqueueResult[]> {
    const notify = this.database.dialect === 'postgres' ? { notifyDueBy: now } : {};
    const inserted = await insertJobs(executor, rows, { ...notify, ...(along ? { along } : {}) });
    const results: (EnqueueResult | undefined)[] = rows.map((r) =>
      inserted.has(r.id) ? { id: r.id, duplicate: false } : undefined,
    );
    // A skipped row lost to a pending job with its unique key. That job may finish between the
    // insert and this lookup; then insert again (a few tries: each needs a finish to race it).
    for (let tries = 0; results.includes(undefined); tries++) {
      const missing = rows.filter((_, i) => results[i] === undefined);
      const existing = await findPendingByUniqueKeys(executor, [...new Set(missing.map((r) => r.unique_key!))]);
      const retry: typeof rows = [];
      rows.forEach((r, i) => {
        if (results[i] !== undefined) return;
        const id = existing.get(r.unique_key!);
        if (id !== undefined && id !== r.id) results[i] = { id, duplicate: true };
        else retry.push(r);
      });
      if (retry.length === 0) break;
      if (tries >= 3) throw new Error(`enqueue: unique keys kept changing state (${retry[0]!.unique_key})`);
      const again = await insertJobs(executor, retry, notify);
      rows.forEach((r, i) => {
        if (again.has(r.id)) results[i] = { id: r.id, duplicate: false };
      });
    }
    return results as EnqueueResult[];
  }

  private row(job: AnyNewJob, now: number): NewJobRow & JobsTable {
    const o = job.options ?? {};
    if (!job.kind) throw new TypeError('enqueue: kind is required');
    const maxAttempts = o.maxAttempts ?? this.maxAttemptsByKind.get(job.kind) ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('enqueue: maxAttempts must be >= 1');
    if (o.runAt !== undefined && !Number.isFinite(o.runAt)) throw new RangeError('enqueue: runAt must be epoch ms');
    return {
      id: newId(now),
      kind: job.kind,
      tenant_id: o.tenantId ?? null,
      payload: JSON.stringify(job.payload ?? null),
      state: 'available',
      priority: o.priority ?? 0,
      attempts: 0,
      max_attempts: maxAttempts,
      run_at: o.runAt ?? now,
      locked_by: null,
      locked_until: null,
      unique_key: o.uniqueKey ?? null,
      last_error: null,
      lease_expiries: 0,
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
  }

  /**
   * Calls `listener(kind)` after each enqueue of a due job in this process, so an in-process worker
   * polls at once. It fires before the caller's commit: treat it as a hint, not a guarantee.
   * Returns the unsubscribe function.
   */
  onEnqueue(listener: (kind: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async get(id: string, executor: Executor = this.database.db): Promise<JobRecord | null> {
    const row = await findJob(executor, id);
    return row ? toRecord(row) : null;
  }

  /** Cancels an available or running job; false when it had already finished (or does not exist). */
  async cancel(id: string, executor: Executor = this.database.db): Promise<boolean> {
    return cancelJob(executor, { id, now: this.clock.now() });
  }

  /**
   * The priority that gives a tenant's next job of `kind` its fair share: the number of its jobs
   * already waiting. Claims run lowest priority first, so a tenant with one upload is served next
   * even behind another tenant's 10,000-file batch (round-robin by depth rather than first come).
   */
  async fairSharePriority(executor: Executor, kind: KindOf<Jobs>, tenantId: string): Promise<number> {
    return countWaiting(executor, kind, tenantId);
  }

  /** Job counts by kind and state, for the Prometheus gauge. */
  async countsByKindAndState(): Promise<{ kind: string; state: string; count: number }[]> {
    return countJobs(this.database.db);
  }

  /** Deletes completed and cancelled jobs that finished more than `olderThanMs` ago; returns how many. */
  async prune(olderThanMs: number): Promise<number> {
    const before = this.clock.now() - olderThanMs;
    let total = 0;
    // In slices, so a large backlog never holds a long write lock.
    for (;;) {
      const deleted = await deleteFinished(this.database.db, { before, limit: 5_000 });
      total += deleted;
      if (deleted < 5_000) return total;
    }
  }
}

/** A row as the API of the queue shows it. */
export function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    tenantId: row.tenant_id,
    payload: JSON.parse(row.payload),
    state: row.state as JobState,
    priority: Number(row.priority),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAt: Number(row.run_at),
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
    uniqueKey: row.unique_key,
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
  };
}
