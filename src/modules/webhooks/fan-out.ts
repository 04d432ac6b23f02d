import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { type EventSubscriber, eventSubscriber } from '../../events/event-log.ts';
import type { RecordedEvent } from '../../events/record-event.ts';
import type { JobQueue, NewJob } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  type DeliveriesRepository,
  type Delivery,
  type DeliveryRef,
  pendingDelivery,
} from './deliveries.repository.ts';
import { deliverJob } from './delivery-jobs.ts';
import { isHealthy } from './delivery-policy.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { EndpointLimiter } from './endpoint-limiter.ts';
import type { WebhooksRepository } from './webhooks.repository.ts';

/**
 * Most attempts one job carries, and most the fan-out sends itself. Such attempts are sent at
 * once, so this bounds the requests one worker slot has in flight (a tenant may have 100 webhooks).
 */
export const ATTEMPTS_PER_JOB = 8;

/** The fan-out's sends are never aborted: each ends within the delivery timeout. */
const NOT_ABORTED = new AbortController().signal;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
  runner: Pick<DeliveryRunner, 'sendAll'>;
  limiter: Pick<EndpointLimiter, 'isFastOrUntried'>;
}

/**
 * The module's event subscriber: one first attempt per (event, active webhook subscribed to its
 * name and created at or before it). It runs at least once per event (events.publish is retried
 * until it succeeds), and the unique (webhook, event, attempt) key turns a second run into a
 * no-op: nothing skipped after a crash, nothing doubled. Paused and disabled webhooks get nothing:
 * events that happen while a webhook is paused are not queued for it.
 *
 * Who sends a first attempt (on PostgreSQL the database round trips per delivery are what limits
 * throughput, so the common case costs as few as possible):
 * - to an endpoint that is healthy and answered fast lately (or was not called yet from this
 *   process, which the call then measures): this run itself, right after inserting the attempts
 *   (one statement), with no job of its own. The events.publish job is what makes it durable: if
 *   this run dies before the outcomes are written, the job runs again, finds the attempts already
 *   there and still pending, and queues a job for them. The event's other subscribers (later in
 *   the module order) wait for these sends: at most ATTEMPTS_PER_JOB calls, each bounded by the
 *   delivery timeout, to endpoints whose recent calls took under 200 ms on average; the endpoint
 *   limiter keeps the calls to one endpoint at its concurrency limit and defers the rest to jobs.
 * - to other healthy endpoints: one `webhooks.deliver` job for all of them (one claim, one read,
 *   usually one write), inserted in the attempts' transaction;
 * - to a failing endpoint: a job of its own at the failing priority, so it neither delays the
 *   others nor queues in front of healthy endpoints' deliveries.
 */
export function webhookFanOut(deps: Deps): EventSubscriber {
  // Without an active webhook in the tenant an event has nothing to fan out, so it gets no
  // publish job (EventLog.record reads this in the event's insert). Names and creation times are
  // checked by the fan-out itself: this only has to hold whenever the fan-out may act.
  const actsWhen = (tenantId: string) =>
    sql`exists (select 1 from webhooks where tenant_id = ${tenantId} and status = 'active')`;
  const fanOut = async (event: RecordedEvent): Promise<void> => {
    const { database, clock, jobs, webhooks, deliveries, runner, limiter } = deps;
    const candidates = await webhooks.listActiveAt(database.db, event.tenantId, event.createdAt);
    const subscribed = candidates.filter((w) => w.events.includes(event.name));
    if (subscribed.length === 0) return;
    const now = clock.now();
    const attempts = subscribed.map((w) => firstAttempt(event, w.id, now));
    const byWebhook = new Map(subscribed.map((w) => [w.id, w]));
    const direct = new Set(
      attempts
        .filter((a) => isHealthy(byWebhook.get(a.webhookId)!) && limiter.isFastOrUntried(a.webhookId))
        .slice(0, ATTEMPTS_PER_JOB)
        .map((a) => a.id),
    );
    const failing = new Set(subscribed.filter((w) => w.consecutiveFailures > 0).map((w) => w.id));
    const queueJobs = (executor: Executor, refs: readonly DeliveryRef[]) =>
      jobs.enqueueMany(executor, jobsFor(event.tenantId, refs, failing));

    let inserted: DeliveryRef[];
    if (direct.size === attempts.length) {
      inserted = await deliveries.insertIfAbsent(database.db, attempts);
    } else {
      inserted = await database.db.transaction().execute(async (trx) => {
        const added = await deliveries.insertIfAbsent(trx, attempts);
        await queueJobs(
          trx,
          added.filter((d) => !direct.has(d.id)),
        );
        return added;
      });
    }
    if (inserted.length < attempts.length) {
      // Another run of this event inserted some attempts first (this is a second run, after a
      // crash or a failed subscriber): those still pending may never have been sent. Queue them;
      // one that is sent twice this way carries the same X-Service-Delivery both times.
      const mine = new Set(inserted.map((d) => d.id));
      const others = attempts.filter((a) => !mine.has(a.id)).map((a) => a.webhookId);
      const earlier = await deliveries.pendingFirstAttempts(database.db, event.tenantId, event.id, others);
      if (earlier.length > 0) await queueJobs(database.db, earlier);
    }
    const toSend = inserted.filter((d) => direct.has(d.id));
    if (toSend.length === 0) return;
    const byId = new Map(attempts.map((a) => [a.id, a]));
    await runner.sendAll(
      toSend.map((d) => ({ delivery: byId.get(d.id)!, webhook: byWebhook.get(d.webhookId)!, data: event.data })),
      NOT_ABORTED,
    );
  };
  return eventSubscriber(fanOut, { actsWhen });
}

/** Jobs for attempts: the healthy endpoints' together (a job's worth each), each failing endpoint's alone. */
function jobsFor(tenantId: string, attempts: readonly DeliveryRef[], failing: ReadonlySet<string>): NewJob[] {
  const healthy = attempts.filter((d) => !failing.has(d.webhookId)).map((d) => d.id);
  return [
    ...chunks(healthy, ATTEMPTS_PER_JOB).map((ids) => deliverJob(tenantId, ids)),
    ...attempts.filter((d) => failing.has(d.webhookId)).map((d) => deliverJob(tenantId, [d.id], { failing: true })),
  ];
}

function firstAttempt(event: RecordedEvent, webhookId: string, now: number): Delivery {
  return pendingDelivery(
    {
      tenantId: event.tenantId,
      webhookId,
      eventId: event.id,
      event: event.name,
      eventAt: event.createdAt,
      payload: null,
      attempt: 1,
      trigger: 'event',
      retryIndex: 0,
    },
    now,
  );
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
