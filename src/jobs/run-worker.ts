import type { Database } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { JobQueue } from './job-queue.ts';
import type { JobDefinition, JobOutcome } from './job-types.ts';
import { Worker, type WorkerOptions } from './worker.ts';

export interface RunWorkerOptions {
  database: Database;
  definitions: readonly JobDefinition[];
  /** Shares the process's queue (so in-process enqueues wake this worker); one is made if absent. */
  queue?: WorkerOptions['queue'];
  concurrency: number;
  pollIntervalMs: number;
  leaseMs: number;
  logger?: Logger;
  clock?: Clock;
  workerId?: string;
  onJobFinished?: (kind: string, outcome: JobOutcome) => void;
  retentionMs?: number | null;
}

/**
 * Builds and starts a worker for a catalogue: the whole of `npm run worker` once the container
 * has opened the database. Stop it with `worker.stop(shutdownTimeoutMs)` on SIGTERM.
 */
export async function runWorker(options: RunWorkerOptions): Promise<Worker> {
  const queue =
    options.queue ??
    new JobQueue({ database: options.database, clock: options.clock, definitions: options.definitions });
  const worker = new Worker({ ...options, queue });
  await worker.start();
  return worker;
}
