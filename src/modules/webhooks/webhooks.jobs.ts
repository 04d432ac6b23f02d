import type { DeliverPayload } from './delivery-jobs.ts';

/** The webhooks module's job kinds and their payloads (see DELIVER_JOB). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'webhooks.deliver': DeliverPayload;
  }
}
