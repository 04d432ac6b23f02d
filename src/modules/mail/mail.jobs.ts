import type { SendMailPayload } from './mail-sender.ts';

/** The mail module's job kinds and their payloads (see MAIL_SEND_JOB). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'mail.send': SendMailPayload;
  }
}
