import type { Database } from '../../src/db/database.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import type { AnyJobPayloads, JobDefinition, JobRecord } from '../../src/jobs/job-types.ts';
import { Worker, type WorkerOptions } from '../../src/jobs/worker.ts';

let counter = 0;

/** A job kind no other test in the file uses, so tests can share one database. */
export function uniqueKind(name: string): string {
  counter++;
  return `test.${name}${counter}`;
}

/** Polls `check` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the job reaches one of the states and returns it. */
export function waitForState(
  queue: Pick<JobQueue, 'get'>,
  id: string,
  states: JobRecord['state'][],
  timeoutMs = 10_000,
): Promise<JobRecord> {
  return waitFor(
    async () => {
      const job = await queue.get(id);
      return job && states.includes(job.state) ? job : undefined;
    },
    `job ${id} to be ${states.join('/')}`,
    timeoutMs,
  );
}

/** A started worker with test-friendly defaults (fast polling, short lease). */
export async function startWorker(
  database: Database,
  queue: WorkerOptions['queue'],
  definitions: JobDefinition[],
  options: Partial<WorkerOptions> = {},
): Promise<Worker> {
  const worker = new Worker({
    database,
    queue,
    definitions,
    concurrency: 4,
    pollIntervalMs: 50,
    leaseMs: 2_000,
    ...options,
  });
  await worker.start();
  return worker;
}

/** A queue of any kinds: the queue's own tests make up their kinds (`uniqueKind`). */
export function newQueue(database: Database): JobQueue<AnyJobPayloads> {
  return new JobQueue<AnyJobPayloads>({ database });
}

/**
 * Waits until the queue has nothing to do now: no job running and none available whose time has
 * come (retries and timers scheduled later are left). Tests that assert something did NOT happen
 * wait for this instead of a fixed sleep: once it holds, whatever was going to happen has.
 */
export async function jobsSettled(database: Database, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    async () => {
      const busy = await database.db
        .selectFrom('jobs')
        .select('id')
        .where((eb) =>
          eb.or([eb('state', '=', 'running'), eb.and([eb('state', '=', 'available'), eb('run_at', '<=', Date.now())])]),
        )
        .limit(1)
        .executeTakeFirst();
      return busy === undefined;
    },
    'the job queue to settle',
    timeoutMs,
  );
}
