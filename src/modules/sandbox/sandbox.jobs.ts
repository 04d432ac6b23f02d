import type { RecurringTick } from '../../jobs/job-types.ts';

/** The sandbox module's job kinds: the recurring reset of sandboxes whose 7 days are up (sandbox-reset.ts). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'sandbox.reset_due': RecurringTick;
  }
}
