import type { Executor } from '../../db/executor.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';

export const IMPORT_JOBS = {
  /** Walks a project's folders and records what it finds. */
  scan: 'imports.scan',
  /** One lane of a project's import: one file per run, then the lane's next run. */
  lane: 'imports.lane',
} as const;

export interface ScanPayload {
  tenantId: string;
  projectId: string;
}

export interface LanePayload {
  tenantId: string;
  projectId: string;
  lane: number;
}

/** Starts (or keeps) `count` lanes of a project; a lane already queued or running is not doubled. */
export async function enqueueLanes(
  jobs: JobQueue,
  trx: Executor,
  payload: { tenantId: string; projectId: string },
  count: number,
): Promise<void> {
  await jobs.enqueueMany(
    trx,
    Array.from({ length: count }, (_, lane) => ({
      kind: IMPORT_JOBS.lane,
      payload: { ...payload, lane } satisfies LanePayload,
      options: { tenantId: payload.tenantId, uniqueKey: laneKey(payload.projectId, lane) },
    })),
  );
}

export function laneKey(projectId: string, lane: number): string {
  return `imports.lane:${projectId}:${lane}`;
}
