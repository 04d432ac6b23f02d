import type { RecurringTick } from '../../jobs/job-types.ts';

/** The audit module's job kinds: the recurring purge of deleted tenants' records past their retention. */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'audit.purge': RecurringTick;
  }
}
