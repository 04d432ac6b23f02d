import type { Generated } from 'kysely';

// The webhooks module's tables (migration 20261123_1100_webhooks), added to the database type by
// declaration merging so src/db/schema.ts stays free of module knowledge.

/** The states of a webhook (docs/api-decisions.md §8): `disabled` is set only by the service. */
export const WEBHOOK_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** The states of one delivery attempt. `cancelled`: the webhook was paused or disabled before it was sent. */
export const DELIVERY_STATUSES = ['pending', 'success', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Why an attempt exists: an event's first attempt, an automatic retry, a manual redelivery, a test ping. */
export type DeliveryTrigger = 'event' | 'retry' | 'redeliver' | 'test';

export interface WebhooksTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON string[] of event names. */
  events: string;
  /** The signing secret, sealed with the module's key (secret-box.ts). */
  secret: string;
  status: WebhookStatus;
  /** Why the service disabled it; null otherwise. */
  status_reason: string | null;
  /** Start of the current run of failed automatic attempts; null while the endpoint is healthy. */
  failing_since: number | null;
  consecutive_failures: Generated<number>;
  /** While in the future, automatic deliveries wait instead of trying a failing endpoint (circuit breaker). */
  circuit_open_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  /** This attempt's id: the X-Service-Delivery header. */
  id: string;
  tenant_id: string;
  webhook_id: string;
  /** X-Service-Event-Id: the same on every attempt of an event. */
  event_id: string;
  event: string;
  event_at: number;
  /** JSON data for events without an events row (test pings); null: the events row holds it. */
  payload: string | null;
  attempt: number;
  trigger: DeliveryTrigger;
  /** Automatic attempts: delays of the retry schedule used before this one (0 for the first). Null for manual ones. */
  retry_index: number | null;
  status: DeliveryStatus;
  response_status: number | null;
  duration_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
  /** When the automatic retry following this failed attempt is due. */
  next_retry_at: number | null;
  scheduled_at: number;
  sent_at: number | null;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    webhooks: WebhooksTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}
