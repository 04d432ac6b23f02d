import type { NewJob } from '../../jobs/job-queue.ts';

/** The job that makes delivery attempts: one, or an event's first attempts to several webhooks (docs/webhooks.md). */
export const DELIVER_JOB = 'webhooks.deliver';

/**
 * Job priority of attempts to an endpoint that is failing (retries, deferrals, new events while it
 * fails). Claims take lower numbers first, so a dead endpoint's backlog never queues in front of
 * deliveries to healthy endpoints.
 */
export const FAILING_ENDPOINT_PRIORITY = 10;

/**
 * The attempts one job makes, all of one tenant. `deliveryId` alone is the form of jobs enqueued
 * before one job could carry several attempts; such jobs still run.
 */
export type DeliverPayload = { tenantId: string; deliveryIds: string[] } | { tenantId: string; deliveryId: string };

/** The attempt ids of a job's payload, whichever form it has. */
export function payloadDeliveryIds(payload: DeliverPayload): string[] {
  return 'deliveryIds' in payload ? payload.deliveryIds : [payload.deliveryId];
}

/** The job for attempts due at `runAt` (default now); several only when they go to different webhooks. */
export function deliverJob(
  tenantId: string,
  deliveryIds: string[],
  options: { runAt?: number; failing?: boolean } = {},
): NewJob {
  const payload: DeliverPayload = { tenantId, deliveryIds };
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
