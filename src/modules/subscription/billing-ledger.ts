import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { TierChange, TierChangeCause } from '../../domain/tier-change.ts';
import type { Tier } from '../../domain/tiers.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import type { BillingUpdate } from './stripe-events.ts';
import type { Checkout, Subscription, SubscriptionRepository } from './subscription.repository.ts';
import type { BillingProviderName } from './subscription.tables.ts';

/** The identity module's tier switch (TenantsService): in the caller's transaction, then told after commit. */
export interface TierSwitch {
  changeTier(trx: Executor, tenantId: string, to: Tier, cause: TierChangeCause): Promise<TierChange | null>;
  tierCommitted(tenantId: string): void;
}

interface Deps {
  database: Database;
  clock: Clock;
  repo: SubscriptionRepository;
  tiers: TierSwitch;
  /** Whether a live tenant with this id exists (provider metadata is not trusted blindly). */
  liveTenantExists(tenantId: string): Promise<boolean>;
}

/** The tenants whose tier a transaction changed, told to every cache once it committed. */
type Changed = Set<string>;

/**
 * Applies what changes a subscription: completed checkouts (administrator or provider), provider
 * events (renewals, payment failures, cancellations) and cancellations reaching their period end.
 * Each runs in one transaction with the tier change it causes; the credential caches are told after.
 */
export class BillingLedger {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  /**
   * Completes a manual checkout (`POST /admin/checkouts/{id}/complete`): the tier changes at once.
   * Completing again answers the same checkout and changes nothing.
   */
  async completeManual(id: string): Promise<Checkout> {
    return this.run(async (trx, changed) => {
      const checkout = await this.deps.repo.findCheckout(trx, id);
      if (!checkout) throw errors.notFound('checkout', id);
      if (checkout.status === 'completed') return checkout;
      if (checkout.provider !== 'manual')
        throw errors.conflict(
          `This checkout is completed by its provider (${checkout.provider}), not by an administrator`,
        );
      if (checkout.status === 'expired' || checkout.expiresAt <= this.deps.clock.now()) {
        if (checkout.status === 'open') await this.deps.repo.updateCheckout(trx, id, { status: 'expired' });
        throw errors.conflict('This checkout has expired; start a new one', { checkout_status: 'expired' });
      }
      return this.complete(trx, changed, checkout, { customerId: null, subscriptionId: null });
    });
  }

  /**
   * Applies one provider event once: a replay (same event id) changes nothing, and an event older
   * than the newest already applied to the subscription does not move its status back.
   */
  async applyProviderEvent(
    provider: BillingProviderName,
    event: { id: string; type: string; createdAt: number },
    update: BillingUpdate,
  ): Promise<'applied' | 'replay'> {
    return this.run(async (trx, changed) => {
      const claimed = await this.deps.repo.claimEvent(trx, {
        id: event.id,
        provider,
        type: event.type,
        tenantId: null,
        receivedAt: this.deps.clock.now(),
      });
      if (!claimed) return 'replay';
      await this.apply(trx, changed, provider, event, update);
      return 'applied';
    });
  }

  /** Cancelled subscriptions whose period ended fall back to Free (also when the provider's own end event is late or lost). */
  async endDueCancellations(): Promise<number> {
    const due = await this.deps.repo.dueCancellations(this.deps.database.db, this.deps.clock.now(), 100);
    for (const subscription of due) {
      await this.run(async (trx, changed) => {
        const current = await this.deps.repo.findSubscription(trx, subscription.tenantId);
        if (!current?.cancelAt || current.cancelAt > this.deps.clock.now()) return;
        await this.toFree(trx, changed, current, {
          reason: 'provider_event',
          actor: current.provider,
          reference: 'period_end',
        });
      });
    }
    return due.length;
  }

  private async apply(
    trx: Executor,
    changed: Changed,
    provider: BillingProviderName,
    event: { id: string; createdAt: number },
    update: BillingUpdate,
  ): Promise<void> {
    const { repo } = this.deps;
    const cause: TierChangeCause = { reason: 'provider_event', actor: provider, reference: event.id };
    switch (update.kind) {
      case 'checkout_completed': {
        const checkout = await repo.findCheckout(trx, update.checkoutId);
        // Paid is paid: a checkout superseded here but paid at the provider still completes.
        if (checkout && checkout.status !== 'completed') await this.complete(trx, changed, checkout, update);
        return;
      }
      case 'subscription_changed': {
        const current = await this.subscriptionOf(trx, update.subscriptionId, update.tenantId);
        if (!current || isStale(current, event.createdAt)) return;
        await repo.upsertSubscription(trx, {
          tenantId: current.tenantId,
          provider,
          status: update.status,
          cancelAt: update.cancelAt,
          providerSubscriptionId: update.subscriptionId,
          ...(update.customerId ? { providerCustomerId: update.customerId } : {}),
          lastEventAt: event.createdAt,
          updatedAt: this.deps.clock.now(),
        });
        // A plan changed at the provider (its portal) changes the tier too; before the checkout
        // linked the subscription, the checkout's completion is what changes it.
        const linked = current.providerSubscriptionId === update.subscriptionId && current.updatedAt > 0;
        if (linked && update.tier && update.status === 'active')
          await this.changeTier(trx, changed, current.tenantId, update.tier, cause);
        return;
      }
      case 'subscription_ended': {
        const current = await this.subscriptionOf(trx, update.subscriptionId, update.tenantId);
        if (current)
          await this.toFree(
            trx,
            changed,
            { ...current, lastEventAt: Math.max(current.lastEventAt ?? 0, event.createdAt) },
            cause,
          );
        return;
      }
      case 'payment': {
        const current = await repo.findByProviderSubscription(trx, update.subscriptionId);
        // A cancelled subscription stays cancelled whatever its last invoices do.
        if (!current || current.status === 'cancelled' || isStale(current, event.createdAt)) return;
        await repo.upsertSubscription(trx, {
          tenantId: current.tenantId,
          status: update.succeeded ? 'active' : 'past_due',
          lastEventAt: event.createdAt,
          updatedAt: this.deps.clock.now(),
        });
        return;
      }
      case 'ignored':
        return;
    }
  }

  private async complete(
    trx: Executor,
    changed: Changed,
    checkout: Checkout,
    ids: { customerId: string | null; subscriptionId: string | null },
  ): Promise<Checkout> {
    const now = this.deps.clock.now();
    const actor = checkout.createdBy ?? 'api_key';
    await this.changeTier(trx, changed, checkout.tenantId, checkout.tier as Tier, {
      reason: 'checkout',
      actor,
      reference: checkout.id,
    });
    await this.deps.repo.updateCheckout(trx, checkout.id, { status: 'completed', completedAt: now });
    await this.deps.repo.upsertSubscription(trx, {
      tenantId: checkout.tenantId,
      provider: checkout.provider,
      status: 'active',
      cancelAt: null,
      ...(ids.customerId ? { providerCustomerId: ids.customerId } : {}),
      ...(ids.subscriptionId ? { providerSubscriptionId: ids.subscriptionId } : {}),
      updatedAt: now,
    });
    return { ...checkout, status: 'completed', completedAt: now };
  }

  private async toFree(trx: Executor, changed: Changed, current: Subscription, cause: TierChangeCause): Promise<void> {
    await this.changeTier(trx, changed, current.tenantId, 'free', cause);
    await this.deps.repo.upsertSubscription(trx, {
      tenantId: current.tenantId,
      status: 'cancelled',
      cancelAt: null,
      lastEventAt: current.lastEventAt,
      updatedAt: this.deps.clock.now(),
    });
  }

  private async changeTier(
    trx: Executor,
    changed: Changed,
    tenantId: string,
    to: Tier,
    cause: TierChangeCause,
  ): Promise<void> {
    if (await this.deps.tiers.changeTier(trx, tenantId, to, cause)) changed.add(tenantId);
  }

  /** The subscription an event names: by the provider's id, else by the tenant its metadata carries. */
  private async subscriptionOf(
    trx: Executor,
    subscriptionId: string,
    tenantId: string | null,
  ): Promise<Subscription | null> {
    const known = await this.deps.repo.findByProviderSubscription(trx, subscriptionId);
    if (known || !tenantId) return known;
    const byTenant = await this.deps.repo.findSubscription(trx, tenantId);
    if (byTenant) return byTenant;
    // Its first event can arrive before the checkout's completion: start the row from it.
    return (await this.deps.liveTenantExists(tenantId))
      ? {
          tenantId,
          status: 'active',
          provider: 'stripe',
          providerCustomerId: null,
          providerSubscriptionId: subscriptionId,
          cancelAt: null,
          lastEventAt: null,
          updatedAt: 0,
        }
      : null;
  }

  private async run<T>(work: (trx: Executor, changed: Changed) => Promise<T>): Promise<T> {
    const changed: Changed = new Set();
    const result = await this.deps.database.db.transaction().execute((trx) => work(trx, changed));
    for (const tenantId of changed) this.deps.tiers.tierCommitted(tenantId);
    return result;
  }
}

function isStale(subscription: Subscription, eventAt: number): boolean {
  return subscription.lastEventAt !== null && subscription.lastEventAt > eventAt;
}
