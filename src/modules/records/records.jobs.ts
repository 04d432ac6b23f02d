import type { RecurringTick } from '../../jobs/job-types.ts';

/** One rule's run: the documents of its folder tree whose time is up, page by page. */
export interface RetentionRunPayload {
  tenantId: string;
  ruleId: string;
}

/**
 * The records module's job kinds (docs/records.md): a recurring tick that starts a run of every
 * rule, and the run of one rule (its progress on the rule's row).
 */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'records.retention_due': RecurringTick;
    'records.run_rule': RetentionRunPayload;
  }
}

export const RECORDS_JOBS = {
  due: 'records.retention_due',
  runRule: 'records.run_rule',
} as const;
