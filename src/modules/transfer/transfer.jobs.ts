import type { RecurringTick } from '../../jobs/job-types.ts';

/** The transfer module's job kinds and their payloads (tenant-archive/exports.service.ts). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    /** Writes one tenant export's archive. */
    'transfer.export_tenant': { exportId: string };
    /** Recurring: deletes the archives of exports past EXPORT_RETENTION_HOURS. */
    'transfer.expire_exports': RecurringTick;
    /** Recurring: deletes the files of tenant imports killed before they committed (tenant-archive/import-journal.ts). */
    'transfer.sweep_imports': RecurringTick;
  }
}
