import type { Executor } from '../../db/executor.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import { type MigrationJobPayload, STORAGE_JOBS, type StorageDeps } from './runner-deps.ts';

/** How a step ends: its own writes, and when the next step runs (none: the run stops here). */
export interface StepEnd {
  work?: (trx: Executor) => Promise<void>;
  next?: 'now' | number;
}

/** Ends this job, committing the step's writes and enqueueing the next step in one transaction. */
export async function finish(
  deps: StorageDeps,
  job: RunningJob<MigrationJobPayload>,
  end: StepEnd = {},
): Promise<void> {
  await deps.database.db.transaction().execute(async (trx) => {
    await end.work?.(trx);
    if (end.next !== undefined) {
      const runAt = end.next === 'now' ? {} : { runAt: end.next };
      await deps.jobs.enqueue(trx, STORAGE_JOBS.migrate, job.payload, {
        tenantId: job.tenantId,
        priority: job.priority,
        ...runAt,
      });
    }
    await job.completeIn(trx);
  });
}
