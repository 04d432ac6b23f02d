import type { Database } from '../../db/database.ts';
import type { EventSubscriber } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { DeliveriesRepository, NewDeliveryRow } from './deliveries.repository.ts';
import { deliverJob } from './delivery-jobs.ts';
import { parseEventList } from './webhook-events.ts';
import type { WebhooksRepository } from './webhooks.repository.ts';

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
}

/**
 * The module's event subscriber: one first attempt per (event, active webhook subscribed to its
 * name and created at or before it), with its delivery job, in one transaction. It runs at least
 * once per event (events.publish is retried), and the unique (webhook, event, attempt) key turns a
 * second run into a no-op: nothing skipped after a crash, nothing doubled. Paused and disabled
 * webhooks get nothing: events that happen while a webhook is paused are not queued for it.
 */
export function webhookFanOut(deps: Deps): EventSubscriber {
  return async (event) => {
    const { database, clock, jobs, webhooks, deliveries } = deps;
    const candidates = await webhooks.listActiveAt(database.db, event.tenantId, event.createdAt);
    const subscribed = candidates.filter((w) => parseEventList(w.events).includes(event.name));
    if (subscribed.length === 0) return;
    const now = clock.now();
    const failing = new Set(subscribed.filter((w) => w.consecutive_failures > 0).map((w) => w.id));
    const rows: NewDeliveryRow[] = subscribed.map((w) => ({
      id: newId(now),
      tenant_id: event.tenantId,
      webhook_id: w.id,
      event_id: event.id,
      event: event.name,
      event_at: event.createdAt,
      payload: null,
      attempt: 1,
      trigger: 'event',
      retry_index: 0,
      status: 'pending',
      scheduled_at: now,
      created_at: now,
    }));
    await database.db.transaction().execute(async (trx) => {
      const inserted = await deliveries.insertIfAbsent(trx, rows);
      await jobs.enqueueMany(
        trx,
        inserted.map((d) => deliverJob(event.tenantId, d.id, { failing: failing.has(d.webhook_id) })),
      );
    });
  };
}
