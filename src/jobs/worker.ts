import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../db/database.ts';
import { type Clock, systemClock } from '../lib/clock.ts';
import { backoffDelay } from './backoff.ts';
import type { JobQueue } from './job-queue.ts';

/** What a worker uses of the queue: none of it depends on the kinds, so any queue's will do. */
type WorkerQueue = Pick<JobQueue, 'register' | 'onEnqueue' | 'prune'>;

import { PgListener } from '../db/pg-listener.ts';
import { type Logger, silentLogger } from '../lib/logger.ts';
import { type JobDefinition, JobLostError, type JobOutcome, PermanentJobError, type RunningJob } from './job-types.ts';
import {
  claimJobs,
  completeJobs,
  completeRun,
  extendLeases,
  type JobRow,
  killDiedJob,
  killJob,
  releaseJobs,
  rescueExpired,
  retryJob,
} from './jobs.repository.ts';

export interface WorkerOptions {
  database: Database;
  queue: WorkerQueue;
  /** The catalogue: only these kinds are claimed. */
  definitions: readonly JobDefinition[];
  clock?: Clock;
  logger?: Logger;
  /** Most jobs this worker runs at once. */
  concurrency: number;
  /** Polls at least this often (PostgreSQL NOTIFY and in-process enqueues wake it sooner). */
  pollIntervalMs: number;
  /** How long a claim holds without a heartbeat; after that, another worker may take the job. */
  leaseMs: number;
  workerId?: string;
  /** Called once per run that ends (after its state is written), for metrics. */
  onJobFinished?: (kind: string, outcome: JobOutcome, seconds: number) => void;
  /** Jitter source for retry backoff (tests pin it). */
  random?: () => number;
  /** Completed/cancelled jobs older than this are deleted by the worker, about hourly. Default 7 days; null keeps them. Dead jobs are kept. */
  retentionMs?: number | null;
  /** Runs in a row whose process died (lease expired) after which a job is failed with `process_died` at its next claim. Default 2. */
  processDeathLimit?: number;
}

export const DEFAULT_PROCESS_DEATH_LIMIT = 2;

/** The run took longer than its definition's timeout. */
export class JobTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`job timed out after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}

/** The signal's reason when the worker stops or loses the job (cancelled, lease taken over). */
export class JobInterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobInterruptedError';
  }
}

interface Run {
  row: JobRow;
  controller: AbortController;
  /** Set when the run's outcome no longer belongs to us (released by stop, or lost). */
  detached: boolean;
  /** performance.now() when the handler started, for run-time metrics. */
  startedAt: number;
  /** The handler completed the job in its own transaction (RunningJob.completeIn). */
  completedInline: boolean;
}

const ERROR_TEXT_LIMIT = 4_000;
const PRUNE_EVERY_MS = 3_600_000;
export const DEFAULT_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * Runs jobs: claims due jobs of its kinds in batches up to its free capacity (respecting each
 * kind's concurrency), heartbeats their leases, writes outcomes (completions batched), retries
 * failures with backoff, and rescues jobs whose worker died. The constructor is the API the
 * composition root uses; `start()` and `stop()` bracket its life.
 */
export class Worker {
  readonly id: string;
  private readonly database: Database;
  private readonly queue: WorkerQueue;
  private readonly definitions: Map<string, JobDefinition>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly onJobFinished: (kind: string, outcome: JobOutcome, seconds: number) => void;
  private readonly random: () => number;
  private readonly retentionMs: number | null;
  private readonly processDeathLimit: number;

  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private readonly running = new Map<string, Run>();
  private readonly runningByKind = new Map<string, number>();
  private completions: Run[] = [];
  /** Whether the poll loop's next pass claims (a finished run's wake-up may only need to flush). */
  private claimRequested = false;
  /**
   * Whether the last claim may have left due jobs behind: it filled every free slot, or a capped
   * kind took its whole room or had none. If not, a freed slot has nothing to claim until a NOTIFY
   * (a new job) or the poll tick (a timer falling due) says otherwise.
   */
  private claimMayFindMore = true;
  private readonly writes = new Set<Promise<void>>();
  private pollRequested = false;
  private loop: Promise<void> | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private heartbeating = false;
  private lastRescue = 0;
  private lastPrune = 0;
  private unsubscribe: (() => void) | null = null;
  private listener: PgListener | null = null;
  private walWatcher: fs.FSWatcher | null = null;
  private drained: (() => void) | null = null;
  private stopping: Promise<void> | null = null;

  constructor(options: WorkerOptions) {
    if (!(options.concurrency >= 1)) throw new RangeError('worker concurrency must be >= 1');
    if (!(options.leaseMs >= 30)) throw new RangeError('worker leaseMs must be >= 30');
    this.database = options.database;
    this.queue = options.queue;
    this.definitions = new Map(options.definitions.map((d) => [d.kind, d]));
    if (this.definitions.size !== options.definitions.length) throw new Error('worker: duplicate job kinds');
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.concurrency = options.concurrency;
    this.pollIntervalMs = options.pollIntervalMs;
    this.leaseMs = options.leaseMs;
    this.id = options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.onJobFinished = options.onJobFinished ?? (() => {});
    this.random = options.random ?? Math.random;
    this.retentionMs = options.retentionMs === undefined ? DEFAULT_RETENTION_MS : options.retentionMs;
    this.processDeathLimit = options.processDeathLimit ?? DEFAULT_PROCESS_DEATH_LIMIT;
    this.queue.register(options.definitions);
  }

  /** Starts polling (and on PostgreSQL listening); resolves once the listener is up or retrying. */
  async start(): Promise<void> {
    if (this.state !== 'idle') throw new Error(`worker cannot start from state ${this.state}`);
    this.state = 'running';
    this.unsubscribe = this.queue.onEnqueue((kind) => {
      // On PostgreSQL the insert raises a NOTIFY delivered at its commit: with the listener up, that
      // is the wake-up that finds the job. This hint comes before the enqueuing transaction commits,
      // so its claim found nothing (a wasted round trip and commit per job); it still serves when
      // the listener is down (reconnecting) and on SQLite.
      if (this.listener?.isConnected()) return;
      if (this.definitions.has(kind)) this.wake();
    });
    this.pollTimer = setInterval(() => this.tick(), this.pollIntervalMs);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(10, Math.floor(this.leaseMs / 3)));
    if (this.database.dialect === 'postgres' && this.database.pgPool) {
      this.listener = new PgListener({
        pool: this.database.pgPool,
        channel: 'jobs',
        onNotify: (kind) => {
          if (this.definitions.has(kind)) this.wake();
        },
        onConnect: () => this.wake(),
        what: 'job worker wake-ups',
        logger: this.logger,
      });
      await this.listener.start();
    }
    if (this.database.file) this.watchSqliteWrites(this.database.file);
    this.logger.info(
      { workerId: this.id, kinds: [...this.definitions.keys()], concurrency: this.concurrency },
      'job worker started',
    );
    this.tick();
  }

  /**
   * Stops claiming, waits up to `timeoutMs` for running jobs, then aborts the rest and hands
   * them back (available at once, the attempt not counted) for another worker.
   */
  stop(timeoutMs = 10_000): Promise<void> {
    this.stopping ??= this.shutdown(timeoutMs);
    return this.stopping;
  }

  /** Jobs running in this worker now. */
  get activeCount(): number {
    return this.running.size;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    if (this.state === 'idle') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.unsubscribe?.();
    this.walWatcher?.close();
    await this.listener?.stop();
    await this.loop;
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.drained = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    const interrupted = [...this.running.values()];
    for (const run of interrupted) {
      this.detach(run);
      run.controller.abort(new JobInterruptedError('worker stopping'));
    }
    if (interrupted.length > 0) {
      const ids = interrupted.map((r) => r.row.id);
      try {
        await releaseJobs(this.database.db, { ids, workerId: this.id, now: this.clock.now() });
        this.logger.warn({ workerId: this.id, jobIds: ids }, 'stopped with jobs still running; released them');
        for (const run of interrupted) this.finished(run, 'released');
      } catch (error) {
        this.logger.error({ err: error, jobIds: ids }, 'could not release jobs; they run again after their lease');
      }
    }
    await this.loop;
    await this.flushCompletions().catch(() => {
      // Logged in flushCompletions; those jobs run again after their lease.
    });
    await Promise.allSettled([...this.writes]);
    this.state = 'stopped';
    this.logger.info({ workerId: this.id }, 'job worker stopped');
  }

  /**
   * SQLite has no NOTIFY: another process's enqueue shows as a write to the `-wal` file. Watching
   * it wakes this worker within milliseconds instead of at the next poll (the poll stays as a backstop).
   */
  private watchSqliteWrites(file: string): void {
    const wal = `${path.basename(file)}-wal`;
    try {
      this.walWatcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name === wal) this.wake();
      });
      this.walWatcher.on('error', () => this.walWatcher?.close());
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot watch the SQLite file; falling back to polling');
    }
  }

  /** Asks for a poll soon; repeated calls before it runs coalesce into one. */
  private wake(claim = true): void {
    this.pollRequested = true;
    if (claim) this.claimRequested = true;
    if (this.loop || this.state === 'stopped') return;
    this.loop = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.pollLoop());
  }

  private async pollLoop(): Promise<void> {
    try {
      while (this.pollRequested) {
        this.pollRequested = false;
        const claim = this.claimRequested;
        this.claimRequested = false;
        await this.flushCompletions();
        if (this.state === 'running' && claim) await this.claim();
      }
    } catch (error) {
      // The next tick tries again; a database outage must not kill the worker.
      this.logger.error({ err: error, workerId: this.id }, 'job poll failed');
    } finally {
      // Cleared synchronously with the last check of pollRequested, so no wake-up is lost.
      this.loop = null;
    }
  }

  private tick(): void {
    if (this.state !== 'running') return;
    this.wake();
    const now = this.clock.now();
    if (now - this.lastRescue >= Math.max(this.pollIntervalMs, Math.min(5_000, this.leaseMs / 4))) {
      this.lastRescue = now;
      this.track(this.rescue(now));
    }
    if (this.retentionMs !== null && now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      this.track(
        this.queue.prune(this.retentionMs).then(
          (n) => this.logger.debug({ deleted: n }, 'pruned finished jobs'),
          (error) => this.logger.warn({ err: error }, 'pruning jobs failed'),
        ),
      );
    }
  }

  private async rescue(now: number): Promise<void> {
    try {
      const rows = await rescueExpired(this.database.db, this.database.dialect, { now, limit: 1_000 });
      if (rows.length > 0) {
        this.logger.warn({ jobs: rows }, 'recovered jobs whose lease expired');
        if (rows.some((r) => r.state === 'available' && this.definitions.has(r.kind))) this.wake();
      }
    } catch (error) {
      this.logger.error({ err: error }, 'lease rescue failed');
    }
  }

  /** Claims up to the free capacity in one statement, each kind within its own concurrency room. */
  private async claim(): Promise<void> {
    const free = this.concurrency - this.running.size;
    if (free <= 0) {
      // A wake-up that found every slot busy: its job waits for the next freed slot.
      this.claimMayFindMore = true;
      return;
    }
    const kinds: string[] = [];
    const kindLimits = new Map<string, number>();
    for (const [kind, def] of this.definitions) {
      const room = (def.concurrency ?? this.concurrency) - (this.runningByKind.get(kind) ?? 0);
      if (room <= 0) continue;
      kinds.push(kind);
      if (room < free) kindLimits.set(kind, room);
    }
    if (kinds.length === 0) {
      this.claimMayFindMore = true;
      return;
    }
    const now = this.clock.now();
    const rows = await claimJobs(this.database.db, this.database.dialect, {
      kinds,
      limit: free,
      kindLimits,
      workerId: this.id,
      now,
      lockedUntil: now + this.leaseMs,
    });
    this.claimMayFindMore =
      rows.length >= free ||
      kinds.length < this.definitions.size ||
      [...kindLimits].some(([kind, room]) => rows.filter((r) => r.kind === kind).length >= room);
    this.startAll(rows);
  }

  private startAll(rows: JobRow[]): void {
    for (const row of rows) {
      if (Number(row.lease_expiries) >= this.processDeathLimit) this.track(this.failDied(row));
      else this.startRun(row);
    }
  }

  /**
   * A poison job: its last runs each ended with their process gone (lease expired, e.g. killed for
   * memory). Running it again would likely kill this process too, so it is failed without running,
   * with `process_died`, and its definition's `onProcessDied` records that in the same transaction.
   */
  private async failDied(row: JobRow): Promise<void> {
    const def = this.definitions.get(row.kind)!;
    const attempt = Number(row.attempts);
    const deaths = Number(row.lease_expiries);
    const error = `process_died: the process running this job died ${deaths} times in a row (its lease expired each time); it is not run again`;
    const log = { jobId: row.id, kind: row.kind, attempts: attempt - 1, leaseExpiries: deaths, workerId: this.id };
    const started = performance.now();
    try {
      await this.database.db.transaction().execute(async (trx) => {
        if (!(await killDiedJob(trx, { id: row.id, workerId: this.id, attempt, error, now: this.clock.now() }))) return;
        await def.onProcessDied?.(trx, {
          id: row.id,
          kind: row.kind,
          payload: parsedOrNull(row.payload),
          tenantId: row.tenant_id,
          error,
        });
      });
      this.logger.error(log, 'job failed with process_died: its process died running it each of the last times');
    } catch (writeError) {
      this.logger.error(
        { ...log, err: writeError },
        'could not fail a job whose process died; it is claimed again after its lease',
      );
    }
    try {
      this.onJobFinished(row.kind, 'process_died', (performance.now() - started) / 1000);
    } catch (error) {
      this.logger.warn({ err: error }, 'onJobFinished threw');
    }
    this.wake();
  }

  private startRun(row: JobRow): void {
    const def = this.definitions.get(row.kind)!;
    const run: Run = {
      row,
      controller: new AbortController(),
      detached: false,
      startedAt: performance.now(),
      completedInline: false,
    };
    this.running.set(row.id, run);
    this.runningByKind.set(row.kind, (this.runningByKind.get(row.kind) ?? 0) + 1);
    void this.execute(run, def);
  }

  private async execute(run: Run, def: JobDefinition): Promise<void> {
    const { row, controller } = run;
    const timeoutMs = def.timeoutMs ?? this.leaseMs;
    let timer: NodeJS.Timeout | undefined;
    let failure: unknown = null;
    try {
      let payload: unknown;
      try {
        payload = JSON.parse(row.payload);
      } catch (error) {
        throw new PermanentJobError('job payload is not valid JSON', { cause: error });
      }
      const job: RunningJob = {
        id: row.id,
        kind: row.kind,
        payload,
        attempt: Number(row.attempts),
        maxAttempts: Number(row.max_attempts),
        tenantId: row.tenant_id,
        priority: Number(row.priority),
        signal: controller.signal,
        completeIn: async (executor) => {
          const held = await completeRun(executor, {
            id: row.id,
            workerId: this.id,
            attempt: Number(row.attempts),
            now: this.clock.now(),
          });
          if (!held) throw new JobLostError(row.id);
          run.completedInline = true;
        },
      };
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new JobTimeoutError(timeoutMs);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
      });
      await Promise.race([def.handler(job), timedOut]);
    } catch (error) {
      failure = error ?? new Error('job failed with an empty error');
    } finally {
      clearTimeout(timer);
    }
    if (run.detached) return;
    this.detach(run);
    if (failure instanceof JobLostError) {
      // Another run holds the job now (or it was cancelled): its outcome is not ours to write.
      this.logger.warn(
        { jobId: row.id, kind: row.kind, workerId: this.id },
        'lost a running job before it could complete',
      );
      this.finished(run, 'lost');
    } else if (run.completedInline) {
      // Written with the handler's work; a failure after that commit changes nothing.
      this.finished(run, 'completed');
    } else if (failure === null) {
      this.completions.push(run);
    } else {
      this.track(this.fail(run, def, failure));
    }
    if (this.running.size === 0) this.drained?.();
    // With the PostgreSQL listener up, every new due job announces itself: a freed slot claims
    // only when the last claim may have left jobs behind (a claim per finished job found nothing).
    this.wake(!this.listener?.isConnected() || this.claimMayFindMore);
  }

  /** Takes a run out of this worker's books: its slot frees and its outcome is no longer ours. */
  private detach(run: Run): void {
    if (run.detached) return;
    run.detached = true;
    this.running.delete(run.row.id);
    const n = (this.runningByKind.get(run.row.kind) ?? 1) - 1;
    if (n > 0) this.runningByKind.set(run.row.kind, n);
    else this.runningByKind.delete(run.row.kind);
  }

  private async fail(run: Run, def: JobDefinition, error: unknown): Promise<void> {
    const { row } = run;
    const attempt = Number(row.attempts);
    const now = this.clock.now();
    const text = errorText(error);
    const permanent = error instanceof PermanentJobError;
    const log = {
      err: error,
      jobId: row.id,
      kind: row.kind,
      attempt,
      maxAttempts: row.max_attempts,
      workerId: this.id,
    };
    try {
      if (permanent || attempt >= Number(row.max_attempts)) {
        await killJob(this.database.db, { id: row.id, workerId: this.id, attempt, error: text, now });
        this.logger.error(log, permanent ? 'job failed permanently' : 'job failed on its last attempt');
        this.finished(run, 'dead');
      } else {
        const runAt = now + backoffDelay(attempt, def.backoff, this.random);
        await retryJob(this.database.db, { id: row.id, workerId: this.id, attempt, error: text, now, runAt });
        this.logger.warn({ ...log, retryAt: runAt }, 'job failed; will retry');
        this.finished(run, 'retried');
      }
    } catch (writeError) {
      this.logger.error(
        { ...log, writeErr: writeError },
        'could not record job failure; it runs again after its lease',
      );
    }
  }

  /** Writes the completions gathered since the last flush in one statement. */
  private async flushCompletions(): Promise<void> {
    if (this.completions.length === 0) return;
    const batch = this.completions;
    this.completions = [];
    try {
      await completeJobs(this.database.db, {
        ids: batch.map((r) => r.row.id),
        workerId: this.id,
        now: this.clock.now(),
      });
    } catch (error) {
      this.logger.error({ err: error, count: batch.length }, 'could not record job completions; retrying');
      this.completions.push(...batch);
      throw error;
    }
    for (const run of batch) this.finished(run, 'completed');
  }

  /** Extends the leases of running jobs; any no longer ours (cancelled, taken over) is aborted. */
  private async heartbeat(): Promise<void> {
    if (this.heartbeating || this.running.size === 0) return;
    this.heartbeating = true;
    try {
      const runs = [...this.running.values()];
      const now = this.clock.now();
      const held = await extendLeases(this.database.db, {
        ids: runs.map((r) => r.row.id),
        workerId: this.id,
        lockedUntil: now + this.leaseMs,
        now,
      });
      for (const run of runs) {
        if (held.has(run.row.id) || run.detached) continue;
        this.detach(run);
        run.controller.abort(new JobInterruptedError('job cancelled or its lease was taken over'));
        this.logger.warn(
          { jobId: run.row.id, kind: run.row.kind, workerId: this.id },
          'lost a running job (cancelled or lease expired)',
        );
        this.finished(run, 'lost');
      }
      if (this.running.size === 0) this.drained?.();
    } catch (error) {
      this.logger.error({ err: error, workerId: this.id }, 'job heartbeat failed');
    } finally {
      this.heartbeating = false;
    }
  }

  private finished(run: Run, outcome: JobOutcome): void {
    const kind = run.row.kind;
    try {
      this.onJobFinished(kind, outcome, (performance.now() - run.startedAt) / 1000);
    } catch (error) {
      this.logger.warn({ err: error }, 'onJobFinished threw');
    }
  }

  private track(write: Promise<void>): void {
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }
}

function parsedOrNull(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

/** What `last_error` keeps of a failure: the stack (name and message first) and its causes, bounded. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    parts.push(current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  const text = parts.join('\nCaused by: ');
  return text.length > ERROR_TEXT_LIMIT ? `${text.slice(0, ERROR_TEXT_LIMIT)}…` : text;
}
