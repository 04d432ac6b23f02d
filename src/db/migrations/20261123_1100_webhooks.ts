import type { Kysely } from 'kysely';

// Webhooks and their delivery log (docs/webhooks.md). One row of webhook_deliveries per attempt:
// its id is the X-Service-Delivery header. The unique (tenant, webhook, event, attempt) key makes
// the fan-out idempotent: a retried events.publish inserts attempt 1 again and gets nothing.
// Every index starts with tenant_id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    /** JSON string[] of event names. */
    .addColumn('events', 'text', (c) => c.notNull())
    /** The signing secret, sealed (AES-256-GCM); never shown after the create answer. */
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    /** Health of the endpoint, from automatic deliveries: start of the current failure streak. */
    .addColumn('failing_since', 'bigint')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('circuit_open_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_tenant_idx')
    .on('webhooks')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    /** The event's id (events.id, or a fresh one for a test ping): X-Service-Event-Id. */
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    /** When the event happened (the envelope's timestamp). */
    .addColumn('event_at', 'bigint', (c) => c.notNull())
    /** JSON data of events without an events row (the test ping); null: read the events row. */
    .addColumn('payload', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull())
    /** `event` (first attempt), `retry`, `redeliver` or `test`. */
    .addColumn('trigger', 'text', (c) => c.notNull())
    /** Automatic retries only: how many delays of the schedule came before this attempt. */
    .addColumn('retry_index', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('next_retry_at', 'bigint')
    .addColumn('scheduled_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('webhook_deliveries_attempt_key', ['tenant_id', 'webhook_id', 'event_id', 'attempt'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_list_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'webhook_id', 'created_at', 'id'])
    .execute();
  // Status filter of the list, and "cancel what is pending" when a webhook is paused or disabled.
  await db.schema
    .createIndex('webhook_deliveries_status_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'webhook_id', 'status', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
