import Stripe from 'stripe';
import type { Config } from '../../config/config.ts';
import type { Tier } from '../../domain/tiers.ts';
import type { BillingProvider, CheckoutRequest, ProviderCheckout } from './billing-provider.ts';

type StripeSettings = Config['billing']['stripe'];

/** The official client, pointed at STRIPE_API_BASE when set (tests: a local server speaking Stripe's protocol). */
export function createStripeClient(settings: StripeSettings): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : null;
  return new Stripe(settings.apiKey ?? '', {
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** Checkout Sessions in subscription mode, one price per tier; completion arrives by webhook (stripe-events.ts). */
export class StripeProvider implements BillingProvider {
  readonly name = 'stripe' as const;
  readonly #stripe: Stripe;
  readonly #prices: StripeSettings['prices'];

  constructor(stripe: Stripe, prices: StripeSettings['prices']) {
    this.#stripe = stripe;
    this.#prices = prices;
  }

  sells(tier: Tier): boolean {
    return tier !== 'free' && this.#prices[tier] !== null;
  }

  async createCheckout(request: CheckoutRequest): Promise<ProviderCheckout> {
    const price = this.#prices[request.tier as Exclude<Tier, 'free'>];
    const metadata = { checkout_id: request.checkoutId, tenant_id: request.tenantId, tier: request.tier };
    const session = await this.#stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        line_items: [{ price: price ?? '', quantity: 1 }],
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        client_reference_id: request.tenantId,
        metadata,
        // The subscription's own events name the tenant too, whatever order they arrive in.
        subscription_data: { metadata },
        expires_at: Math.floor(request.expiresAt / 1000),
        ...(request.customerId ? { customer: request.customerId } : {}),
      },
      // A retried create (network trouble) yields the same session, not a second one.
      { idempotencyKey: `checkout-${request.checkoutId}` },
    );
    if (!session.url) throw new Error('Stripe answered a checkout session without a url');
    return { checkoutUrl: session.url, providerSessionId: session.id };
  }

  async expireCheckout(providerSessionId: string): Promise<void> {
    await this.#stripe.checkout.sessions.expire(providerSessionId);
  }
}
