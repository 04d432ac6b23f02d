import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { BillingEventsTable, CheckoutsTable, SubscriptionsTable, TierChangesTable } from './subscription.tables.ts';

export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type CheckoutRow = Selectable<CheckoutsTable>;
export type TierChangeRow = Selectable<TierChangesTable>;

/** SQL of subscriptions, checkouts, tier history and applied provider events; tenant-scoped where a tenant is known. */
export class SubscriptionRepository {
  async findSubscription(db: Executor, tenantId: string): Promise<SubscriptionRow | null> {
    return (await db.selectFrom('subscriptions').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst()) ?? null;
  }

  async findByProviderSubscription(db: Executor, providerSubscriptionId: string): Promise<SubscriptionRow | null> {
    return (await db.selectFrom('subscriptions').selectAll().where('provider_subscription_id', '=', providerSubscriptionId).executeTakeFirst()) ?? null;
  }

  /** Creates or updates a tenant's billing state with the fields given. */
  async upsertSubscription(db: Executor, row: Pick<SubscriptionRow, 'tenant_id' | 'updated_at'> & Partial<SubscriptionRow>): Promise<void> {
    const insert: SubscriptionRow = {
      status: 'active',
      provider: 'manual',
      provider_customer_id: null,
      provider_subscription_id: null,
      cancel_at: null,
      last_event_at: null,
      ...row,
    };
    const { tenant_id: _tenant, ...update } = row;
    await db
      .insertInto('subscriptions')
      .values(insert)
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(update))
      .execute();
  }

  /** Cancelled subscriptions whose period has ended. */
  async dueCancellations(db: Executor, now: number, limit: number): Promise<SubscriptionRow[]> {
    return db.selectFrom('subscriptions').selectAll().where('cancel_at', '<=', now).orderBy('cancel_at').limit(limit).execute();
  }

  async insertCheckout(db: Executor, row: CheckoutRow): Promise<void> {
    await db.insertInto('checkouts').values(row).execute();
  }

  async findCheckout(db: Executor, id: string): Promise<CheckoutRow | null> {
    return (await db.selectFrom('checkouts').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async findCheckoutForTenant(db: Executor, tenantId: string, id: string): Promise<CheckoutRow | null> {
    return (await db.selectFrom('checkouts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** Expires the tenant's open checkouts (one open checkout per tenant); answers those it expired. */
  async expireOpenCheckouts(db: Executor, tenantId: string): Promise<CheckoutRow[]> {
    const open = await db.selectFrom('checkouts').selectAll().where('tenant_id', '=', tenantId).where('status', '=', 'open').execute();
    if (open.length > 0) await db.updateTable('checkouts').set({ status: 'expired' }).where('tenant_id', '=', tenantId).where('status', '=', 'open').execute();
    return open;
  }

  async updateCheckout(db: Executor, id: string, patch: Partial<CheckoutRow>): Promise<void> {
    await db.updateTable('checkouts').set(patch).where('id', '=', id).execute();
  }

  async insertTierChange(db: Executor, row: TierChangeRow): Promise<void> {
    await db.insertInto('tier_changes').values(row).execute();
  }

  async listTierChanges(db: Executor, tenantId: string, page: { limit: number; offset: number }): Promise<{ rows: TierChangeRow[]; total: number }> {
    const base = db.selectFrom('tier_changes').where('tenant_id', '=', tenantId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** Records a provider event as applied; false when it already was (a replay). */
  async claimEvent(db: Executor, row: Selectable<BillingEventsTable>): Promise<boolean> {
    const result = await db
      .insertInto('billing_events')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    for (const table of ['checkouts', 'tier_changes', 'subscriptions'] as const) await db.deleteFrom(table).where('tenant_id', '=', tenantId).execute();
  }
}

