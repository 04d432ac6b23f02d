import type { Database } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import type { JobQueue } from './job-queue.ts';
import type { JobDefinition, RecurringKind, RecurringTick, RunningJob } from './job-types.ts';

/** A job that runs every `everyMs`, once per tick across all workers and processes. */
export interface RecurringJob {
  /** A kind declared with a `RecurringTick` payload in its module's jobs file. */
  kind: RecurringKind;
  everyMs: number;
  run: (job: RunningJob<RecurringTick>) => Promise<void>;
  maxAttempts?: number;
  timeoutMs?: number;
}

/**
 * Each tick is one job whose unique key names the tick. A run schedules the next tick, and
 * seeding at start asks for the next tick too, so however many processes start, their requests
 * collapse into the same single job per tick.
 */
function tickKey(kind: string, tick: number): string {
  return `${kind}@${tick}`;
}

async function scheduleTick(queue: JobQueue, database: Database, job: RecurringJob, tick: number): Promise<void> {
  await queue.enqueue(
    database.db,
    job.kind,
    { tick },
    { runAt: tick * job.everyMs, uniqueKey: tickKey(job.kind, tick) },
  );
}

/** The worker-side definition: run the work, then schedule the following tick. */
export function recurringDefinition(
  deps: { queue: JobQueue; database: Database; clock: Clock },
  job: RecurringJob,
): JobDefinition<RecurringTick> {
  return {
    kind: job.kind,
    maxAttempts: job.maxAttempts ?? 3,
    ...(job.timeoutMs ? { timeoutMs: job.timeoutMs } : {}),
    handler: async (running) => {
      // Schedule first, so a failing run does not end the chain; after downtime, skip missed ticks.
      const next = Math.max(running.payload.tick + 1, Math.floor(deps.clock.now() / job.everyMs) + 1);
      await scheduleTick(deps.queue, deps.database, job, next);
      await job.run(running);
    },
  };
}

/** Makes sure the next tick of each recurring job exists (called when a worker starts). */
export async function seedRecurring(
  queue: JobQueue,
  database: Database,
  jobs: readonly RecurringJob[],
  now: number,
): Promise<void> {
  for (const job of jobs) await scheduleTick(queue, database, job, Math.floor(now / job.everyMs) + 1);
}
