/** The `priority` of `POST /dag/workflows/{id}/execute`, stored on the execution. */
export const EXECUTION_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type ExecutionPriority = (typeof EXECUTION_PRIORITIES)[number];
export const DEFAULT_PRIORITY: ExecutionPriority = 'normal';
/** Other common spellings a caller may send, stored and shown as the priority they mean. */
const PRIORITY_ALIASES = { medium: 'normal', critical: 'urgent' } as const satisfies Record<string, ExecutionPriority>;
/** What `execute` accepts: the priorities and their aliases. */
export const ACCEPTED_PRIORITIES = [
  ...EXECUTION_PRIORITIES,
  ...(Object.keys(PRIORITY_ALIASES) as (keyof typeof PRIORITY_ALIASES)[]),
];
export type AcceptedPriority = (typeof ACCEPTED_PRIORITIES)[number];

/** The priority an accepted value means. */
export function canonicalPriority(value: AcceptedPriority): ExecutionPriority {
  return value in PRIORITY_ALIASES
    ? PRIORITY_ALIASES[value as keyof typeof PRIORITY_ALIASES]
    : (value as ExecutionPriority);
}

/**
 * The job priority of every step of an execution (lower is claimed first). `normal` stays 0, what
 * every workflow step had before, so triggers and existing callers keep their place among other job
 * kinds (event publishing and webhook deliveries are 0 too). The band is narrow on purpose: the
 * claim merges kinds by priority, and processing's fair share gives a tenant's k-th waiting upload
 * priority k, so a wide band would push `low` steps behind whole upload backlogs or let `urgent`
 * ones jump everything else. Processing's kinds run under their own concurrency (claimed in their
 * own batches), and a merge never reorders the jobs of one kind, so its fair share is untouched.
 */
const JOB_PRIORITY: Record<ExecutionPriority, number> = { urgent: -2, high: -1, normal: 0, low: 1 };

export function jobPriorityOf(priority: ExecutionPriority): number {
  return JOB_PRIORITY[priority] ?? 0;
}

/** A stored value read back; one this version does not know is `normal`. */
export function asPriority(value: string | null | undefined): ExecutionPriority {
  return (EXECUTION_PRIORITIES as readonly string[]).includes(value ?? '')
    ? (value as ExecutionPriority)
    : DEFAULT_PRIORITY;
}
