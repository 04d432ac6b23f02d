import type Stripe from 'stripe';
import type { Config } from '../../config/config.ts';
import { TIERS, type Tier } from '../../domain/tiers.ts';
import type { SubscriptionStatus } from './subscription.tables.ts';

/** What a provider event means for a tenant's subscription, whatever the provider. */
export type BillingUpdate =
  | { kind: 'checkout_completed'; checkoutId: string; customerId: string | null; subscriptionId: string | null }
  | {
      kind: 'subscription_changed';
      subscriptionId: string;
      tenantId: string | null;
      customerId: string | null;
      status: SubscriptionStatus;
      /** When the tier falls back to Free (cancelled at period end); null when not cancelled. */
      cancelAt: number | null;
      /** The tier the subscription's price stands for, when it is one of ours. */
      tier: Tier | null;
    }
  | { kind: 'subscription_ended'; subscriptionId: string; tenantId: string | null }
  | { kind: 'payment'; subscriptionId: string; succeeded: boolean }
  | { kind: 'ignored' };

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

/** Stripe's subscription states in the contract's three words. */
function statusOf(subscription: Stripe.Subscription): SubscriptionStatus {
  if (
    subscription.status === 'canceled' ||
    subscription.status === 'incomplete_expired' ||
    subscription.cancel_at_period_end
  )
    return 'cancelled';
  if (subscription.status === 'active' || subscription.status === 'trialing') return 'active';
  return 'past_due';
}

function cancelAtOf(subscription: Stripe.Subscription): number | null {
  if (subscription.cancel_at) return subscription.cancel_at * 1000;
  if (!subscription.cancel_at_period_end) return null;
  const end = subscription.items?.data?.[0]?.current_period_end;
  return end ? end * 1000 : null;
}

/** The subscription an invoice belongs to (its place moved between Stripe API versions). */
function invoiceSubscription(invoice: Stripe.Invoice): string | null {
  const details = invoice.parent?.subscription_details?.subscription;
  return idOf(details ?? (invoice as unknown as { subscription?: string | null }).subscription);
}

/** Reads the events this service acts on; every other event is acknowledged and ignored. */
export function readStripeEvent(event: Stripe.Event, prices: Config['billing']['stripe']['prices']): BillingUpdate {
  const tierOfPrice = (priceId: string | undefined): Tier | null =>
    TIERS.find((tier) => tier !== 'free' && prices[tier] === priceId) ?? null;
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      const checkoutId = session.metadata?.['checkout_id'];
      if (!checkoutId) return { kind: 'ignored' };
      return {
        kind: 'checkout_completed',
        checkoutId,
        customerId: idOf(session.customer),
        subscriptionId: idOf(session.subscription),
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const subscription = event.data.object;
      return {
        kind: 'subscription_changed',
        subscriptionId: subscription.id,
        tenantId: subscription.metadata?.['tenant_id'] ?? null,
        customerId: idOf(subscription.customer),
        status: statusOf(subscription),
        cancelAt: cancelAtOf(subscription),
        tier: tierOfPrice(subscription.items?.data?.[0]?.price?.id),
      };
    }
    case 'customer.subscription.deleted': {
      const subscription = event.data.object;
      return {
        kind: 'subscription_ended',
        subscriptionId: subscription.id,
        tenantId: subscription.metadata?.['tenant_id'] ?? null,
      };
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const subscriptionId = invoiceSubscription(event.data.object);
      return subscriptionId
        ? { kind: 'payment', subscriptionId, succeeded: event.type === 'invoice.paid' }
        : { kind: 'ignored' };
    }
    default:
      return { kind: 'ignored' };
  }
}
