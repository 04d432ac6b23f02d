import type { NewJob } from '../../jobs/job-queue.ts';

/** The job that makes one delivery attempt (docs/webhooks.md). */
export const DELIVER_JOB = 'webhooks.deliver';

/**
 * Job priority of attempts to an endpoint that is failing (retries, deferrals, new events while it
 * fails). Claims take lower numbers first, so a dead endpoint's backlog never queues in front of
 * deliveries to healthy endpoints.
 */
export const FAILING_ENDPOINT_PRIORITY = 10;

export interface DeliverPayload {
  tenantId: string;
  deliveryId: string;
}

/** The job for one attempt, due at `runAt` (default now). */
export function deliverJob(tenantId: string, deliveryId: string, options: { runAt?: number; failing?: boolean } = {}): NewJob {
  const payload: DeliverPayload = { tenantId, deliveryId };
  return {
    kind: DELIVER_JOB,
    payload,
    options: {
      tenantId,
      ...(options.runAt !== undefined ? { runAt: options.runAt } : {}),
      ...(options.failing ? { priority: FAILING_ENDPOINT_PRIORITY } : {}),
    },
  };
}
