import type { Kysely } from 'kysely';

// Subscription and checkout (docs/subscription.md): billing state per tenant, checkouts, the
// history of tier changes, and the provider events already applied (replays change nothing).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscriptions')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_customer_id', 'text')
    .addColumn('provider_subscription_id', 'text')
    .addColumn('cancel_at', 'bigint')
    .addColumn('last_event_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Provider events name the subscription, not the tenant; the due-cancellation sweep reads cancel_at.
  await db.schema
    .createIndex('subscriptions_provider_idx')
    .on('subscriptions')
    .columns(['provider_subscription_id'])
    .execute();
  await db.schema.createIndex('subscriptions_cancel_idx').on('subscriptions').columns(['cancel_at']).execute();

  await db.schema
    .createTable('checkouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_session_id', 'text')
    .addColumn('checkout_url', 'text', (c) => c.notNull())
    .addColumn('success_url', 'text', (c) => c.notNull())
    .addColumn('cancel_url', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('checkouts_tenant_idx').on('checkouts').columns(['tenant_id', 'status']).execute();

  await db.schema
    .createTable('tier_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('from_tier', 'text', (c) => c.notNull())
    .addColumn('to_tier', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('actor', 'text')
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tier_changes_tenant_idx')
    .on('tier_changes')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('billing_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text')
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['billing_events', 'tier_changes', 'checkouts', 'subscriptions'])
    await db.schema.dropTable(table).ifExists().execute();
}
