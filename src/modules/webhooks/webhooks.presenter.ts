import { iso } from '../../lib/clock.ts';
import type { Delivery } from './deliveries.repository.ts';
import type { Webhook } from './webhooks.repository.ts';

/** A webhook as the API shows it (never its secret). */
export function presentWebhook(w: Webhook) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    status: w.status,
    status_reason: w.statusReason,
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}

/** The create answer: the only one that carries the secret, as given or generated (not as stored). */
export function presentCreatedWebhook(w: Webhook, secret: string) {
  return { ...presentWebhook(w), secret };
}

/** One attempt as the deliveries list shows it (docs/api-decisions.md §8). */
export function presentDelivery(d: Delivery) {
  return {
    id: d.id,
    event_id: d.eventId,
    event: d.event,
    status: d.status,
    response_status: d.responseStatus,
    duration_ms: d.durationMs,
    attempt: d.attempt,
    next_retry_at: iso(d.nextRetryAt),
    created_at: iso(d.createdAt),
    trigger: d.trigger,
    scheduled_at: iso(d.scheduledAt),
    sent_at: iso(d.sentAt),
    error: d.error,
    response_excerpt: d.responseExcerpt,
  };
}
