import type { DeclaredJobDefinition } from '../../jobs/job-types.ts';
import { runMigrationStep } from './migration-runner.ts';
import { type MigrationJobPayload, STORAGE_JOBS, type StorageDeps } from './runner-deps.ts';
import { purgeSource } from './source-purge.ts';

/** The storage module's job kinds and their payloads (see STORAGE_JOBS). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'storage.migrate': MigrationJobPayload;
    'storage.purge_source': MigrationJobPayload;
  }
}

/** The durable jobs of a migration run (docs/storage.md). */
export function storageJobs(deps: StorageDeps): DeclaredJobDefinition[] {
  return [
    {
      kind: STORAGE_JOBS.migrate,
      handler: (job) => runMigrationStep(deps, job),
      // A step that throws (database trouble, a store down mid-step) is run again; file failures
      // are retried on STORAGE_MIGRATION_RETRY_DELAYS inside the run, never by failing the job.
      maxAttempts: 20,
      backoff: { baseMs: 1_000, maxMs: 5 * 60_000 },
      // One migration step at a time per worker: the copy has its own bounded concurrency.
      concurrency: 1,
      timeoutMs: 60 * 60_000,
    },
    {
      kind: STORAGE_JOBS.purgeSource,
      handler: (job) => purgeSource(deps, job),
      maxAttempts: 20,
      backoff: { baseMs: 60_000, maxMs: 6 * 60 * 60_000 },
      timeoutMs: 60 * 60_000,
    },
  ];
}
