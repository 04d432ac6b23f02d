import type { Insertable, Selectable } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import type {
  BillingProviderName,
  CheckoutStatus,
  CheckoutsTable,
  SubscriptionStatus,
  SubscriptionsTable,
  TierChangesTable,
} from './subscription.tables.ts';

/** A tenant's billing state; no row means `active` with nothing bought through a provider. */
export interface Subscription {
  tenantId: string;
  status: SubscriptionStatus;
  provider: BillingProviderName;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  /** A cancelled subscription falls back to Free at this instant (the provider's period end). */
  cancelAt: number | null;
  /** `created` of the newest provider event applied (ms): older events arriving late change nothing. */
  lastEventAt: number | null;
  updatedAt: number;
}

export interface Checkout {
  id: string;
  tenantId: string;
  tier: string;
  status: CheckoutStatus;
  provider: BillingProviderName;
  providerSessionId: string | null;
  checkoutUrl: string;
  successUrl: string;
  cancelUrl: string;
  createdBy: string | null;
  expiresAt: number;
  completedAt: number | null;
  createdAt: number;
}

/** One line of the tier history: who changed the tier, when, from, to and why. */
export interface TierHistoryEntry {
  id: string;
  tenantId: string;
  fromTier: string;
  toTier: string;
  /** `checkout`, `admin`, `provider_event`. */
  reason: string;
  /** A user id, `administrator`, or the provider's name. */
  actor: string | null;
  /** The checkout or provider event behind the change. */
  reference: string | null;
  createdAt: number;
}

/** A provider event being applied (recorded once, so a replay changes nothing). */
export interface AppliedBillingEvent {
  id: string;
  provider: BillingProviderName;
  type: string;
  tenantId: string | null;
  receivedAt: number;
}

export function toSubscription(row: Selectable<SubscriptionsTable>): Subscription {
  return {
    tenantId: row.tenant_id,
    status: row.status,
    provider: row.provider,
    providerCustomerId: row.provider_customer_id,
    providerSubscriptionId: row.provider_subscription_id,
    cancelAt: row.cancel_at,
    lastEventAt: row.last_event_at,
    updatedAt: row.updated_at,
  };
}

const SUBSCRIPTION_COLUMNS: ColumnMap<Subscription, SubscriptionsTable> = {
  tenantId: 'tenant_id',
  status: 'status',
  provider: 'provider',
  providerCustomerId: 'provider_customer_id',
  providerSubscriptionId: 'provider_subscription_id',
  cancelAt: 'cancel_at',
  lastEventAt: 'last_event_at',
  updatedAt: 'updated_at',
};

export function toCheckout(row: Selectable<CheckoutsTable>): Checkout {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    tier: row.tier,
    status: row.status,
    provider: row.provider,
    providerSessionId: row.provider_session_id,
    checkoutUrl: row.checkout_url,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    createdBy: row.created_by,
    expiresAt: row.expires_at,
    completedAt: row.completed_at,
    createdAt: row.created_at,
  };
}

const CHECKOUT_COLUMNS: ColumnMap<Checkout, CheckoutsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  tier: 'tier',
  status: 'status',
  provider: 'provider',
  providerSessionId: 'provider_session_id',
  checkoutUrl: 'checkout_url',
  successUrl: 'success_url',
  cancelUrl: 'cancel_url',
  createdBy: 'created_by',
  expiresAt: 'expires_at',
  completedAt: 'completed_at',
  createdAt: 'created_at',
};

export function toTierHistoryEntry(row: Selectable<TierChangesTable>): TierHistoryEntry {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    fromTier: row.from_tier,
    toTier: row.to_tier,
    reason: row.reason,
    actor: row.actor,
    reference: row.reference,
    createdAt: row.created_at,
  };
}

/** SQL of subscriptions, checkouts, tier history and applied provider events; tenant-scoped where a tenant is known. */
export class SubscriptionRepository {
  async findSubscription(db: Executor, tenantId: string): Promise<Subscription | null> {
    const row = await db.selectFrom('subscriptions').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
    return row ? toSubscription(row) : null;
  }

  async findByProviderSubscription(db: Executor, providerSubscriptionId: string): Promise<Subscription | null> {
    const row = await db
      .selectFrom('subscriptions')
      .selectAll()
      .where('provider_subscription_id', '=', providerSubscriptionId)
      .executeTakeFirst();
    return row ? toSubscription(row) : null;
  }

  /** Creates or updates a tenant's billing state with the fields given. */
  async upsertSubscription(
    db: Executor,
    fields: Pick<Subscription, 'tenantId' | 'updatedAt'> & Partial<Subscription>,
  ): Promise<void> {
    const insert: Subscription = {
      status: 'active',
      provider: 'manual',
      providerCustomerId: null,
      providerSubscriptionId: null,
      cancelAt: null,
      lastEventAt: null,
      ...fields,
    };
    const { tenantId: _tenant, ...update } = fields;
    await db
      .insertInto('subscriptions')
      .values(columnsOf(SUBSCRIPTION_COLUMNS, insert) as Insertable<SubscriptionsTable>)
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(columnsOf(SUBSCRIPTION_COLUMNS, update)))
      .execute();
  }

  /** Cancelled subscriptions whose period has ended. */
  async dueCancellations(db: Executor, now: number, limit: number): Promise<Subscription[]> {
    const rows = await db
      .selectFrom('subscriptions')
      .selectAll()
      .where('cancel_at', '<=', now)
      .orderBy('cancel_at')
      .limit(limit)
      .execute();
    return rows.map(toSubscription);
  }

  async insertCheckout(db: Executor, checkout: Checkout): Promise<void> {
    await db
      .insertInto('checkouts')
      .values(columnsOf(CHECKOUT_COLUMNS, checkout) as Insertable<CheckoutsTable>)
      .execute();
  }

  async findCheckout(db: Executor, id: string): Promise<Checkout | null> {
    const row = await db.selectFrom('checkouts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toCheckout(row) : null;
  }

  async findCheckoutForTenant(db: Executor, tenantId: string, id: string): Promise<Checkout | null> {
    const row = await db
      .selectFrom('checkouts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toCheckout(row) : null;
  }

  /** Expires the tenant's open checkouts (one open checkout per tenant); answers those it expired. */
  async expireOpenCheckouts(db: Executor, tenantId: string): Promise<Checkout[]> {
    const open = await db
      .selectFrom('checkouts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'open')
      .execute();
    if (open.length > 0)
      await db
        .updateTable('checkouts')
        .set({ status: 'expired' })
        .where('tenant_id', '=', tenantId)
        .where('status', '=', 'open')
        .execute();
    return open.map(toCheckout);
  }

  async updateCheckout(db: Executor, id: string, patch: Partial<Omit<Checkout, 'id' | 'tenantId'>>): Promise<void> {
    await db.updateTable('checkouts').set(columnsOf(CHECKOUT_COLUMNS, patch)).where('id', '=', id).execute();
  }

  async insertTierChange(db: Executor, entry: TierHistoryEntry): Promise<void> {
    await db
      .insertInto('tier_changes')
      .values({
        id: entry.id,
        tenant_id: entry.tenantId,
        from_tier: entry.fromTier,
        to_tier: entry.toTier,
        reason: entry.reason,
        actor: entry.actor,
        reference: entry.reference,
        created_at: entry.createdAt,
      })
      .execute();
  }

  async listTierChanges(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: TierHistoryEntry[]; total: number }> {
    const base = db.selectFrom('tier_changes').where('tenant_id', '=', tenantId);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toTierHistoryEntry), total: Number(count.n) };
  }

  /** Records a provider event as applied; false when it already was (a replay). */
  async claimEvent(db: Executor, event: AppliedBillingEvent): Promise<boolean> {
    const result = await db
      .insertInto('billing_events')
      .values({
        id: event.id,
        provider: event.provider,
        type: event.type,
        tenant_id: event.tenantId,
        received_at: event.receivedAt,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    for (const table of ['checkouts', 'tier_changes', 'subscriptions'] as const)
      await db.deleteFrom(table).where('tenant_id', '=', tenantId).execute();
  }
}
