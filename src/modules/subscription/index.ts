import { defineModule } from '../../platform/module.ts';
import { BillingLedger } from './billing-ledger.ts';
import { type BillingProvider, manualProvider } from './billing-provider.ts';
import { stripeWebhookRoutes } from './stripe-webhook.routes.ts';
import { SubscriptionRepository } from './subscription.repository.ts';
import { subscriptionRoutes } from './subscription.routes.ts';
import { SubscriptionService } from './subscription.service.ts';
import { recordTierChange } from './tier-history.ts';
import { SUBSCRIPTION_EVENTS } from './subscription.events.ts';

/** How often cancelled subscriptions whose period ended are moved to Free. */
const CANCELLATION_SWEEP_MS = 60_000;

/**
 * Subscription and checkout (docs/subscription.md): status with limits and usage, checkouts through
 * the configured provider (manual or Stripe), Stripe's webhook, and the history of tier changes.
 * Every tier change, wherever it comes from, runs this module's hook in its transaction.
 */
export const subscriptionModule = defineModule({
  name: 'subscription',
  async setup({ config, database, clock, logger, events, use }) {
    const tenants = use('tenants');
    const directory = use('tenantDirectory');
    const repo = new SubscriptionRepository();
    tenants.onTierChange(
      recordTierChange({ repo, events, workflows: use('workflows'), mail: use('mail'), members: use('members') }),
    );

    // The Stripe SDK loads only where Stripe is the provider.
    const stripe =
      config.billing.provider === 'stripe'
        ? await import('./stripe-provider.ts').then((m) => ({ m, client: m.createStripeClient(config.billing.stripe) }))
        : null;
    const provider: BillingProvider = stripe
      ? new stripe.m.StripeProvider(stripe.client, config.billing.stripe.prices)
      : manualProvider;

    const subscription = new SubscriptionService({
      database,
      clock,
      logger,
      repo,
      provider,
      credits: use('credits'),
      storage: use('storageUsage'),
      checkoutTtlMs: config.billing.checkoutTtlMs,
    });
    const ledger = new BillingLedger({
      database,
      clock,
      repo,
      tiers: tenants,
      liveTenantExists: async (id) => (await directory.findById(id))?.sandboxOf === null,
    });
    return {
      eventSchemas: SUBSCRIPTION_EVENTS,
      async routes(app) {
        subscriptionRoutes(app, { subscription, ledger, publicBaseUrl: config.http.publicBaseUrl });
        if (stripe) await stripeWebhookRoutes(app, { stripe: stripe.client, ledger, settings: config.billing.stripe });
      },
      recurring: [
        {
          kind: 'subscription.end_cancelled',
          everyMs: CANCELLATION_SWEEP_MS,
          run: async () => void (await ledger.endDueCancellations()),
        },
      ],
      sandboxCleanup: (trx, tenantId) => repo.deleteForTenant(trx, tenantId),
    };
  },
});
