// The subscription module's tables (migration 20261125_1301_subscription), added to the database
// type by declaration merging so src/db/schema.ts stays free of module knowledge.

export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const CHECKOUT_STATUSES = ['open', 'completed', 'expired'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export type BillingProviderName = 'manual' | 'stripe';

/** A tenant's billing state; no row means `active` with nothing bought through a provider. */
export interface SubscriptionsTable {
  tenant_id: string;
  status: SubscriptionStatus;
  provider: BillingProviderName;
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  /** A cancelled subscription falls back to Free at this instant (the provider's period end). */
  cancel_at: number | null;
  /** `created` of the newest provider event applied (ms): older events arriving late change nothing. */
  last_event_at: number | null;
  updated_at: number;
}

export interface CheckoutsTable {
  id: string;
  tenant_id: string;
  tier: string;
  status: CheckoutStatus;
  provider: BillingProviderName;
  provider_session_id: string | null;
  checkout_url: string;
  success_url: string;
  cancel_url: string;
  created_by: string | null;
  expires_at: number;
  completed_at: number | null;
  created_at: number;
}

/** Every tier change: who, when, from, to and why (issue 18 item 4). */
export interface TierChangesTable {
  id: string;
  tenant_id: string;
  from_tier: string;
  to_tier: string;
  /** `checkout`, `admin`, `provider_event`. */
  reason: string;
  /** A user id, `administrator`, or the provider's name. */
  actor: string | null;
  /** The checkout or provider event behind the change. */
  reference: string | null;
  created_at: number;
}

/** Provider events already applied, by their id: a replayed delivery changes nothing. */
export interface BillingEventsTable {
  id: string;
  provider: BillingProviderName;
  type: string;
  tenant_id: string | null;
  received_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    subscriptions: SubscriptionsTable;
    checkouts: CheckoutsTable;
    tier_changes: TierChangesTable;
    billing_events: BillingEventsTable;
  }
}
