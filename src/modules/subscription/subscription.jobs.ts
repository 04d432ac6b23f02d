import type { RecurringTick } from '../../jobs/job-types.ts';

/** The subscription module's job kinds: the recurring end of cancelled subscriptions whose period is over. */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'subscription.end_cancelled': RecurringTick;
  }
}
