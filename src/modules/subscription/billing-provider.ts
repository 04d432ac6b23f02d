import type { Tier } from '../../domain/tiers.ts';
import type { BillingProviderName } from './subscription.tables.ts';

/** What a provider needs to open a checkout. */
export interface CheckoutRequest {
  checkoutId: string;
  tenantId: string;
  tier: Tier;
  successUrl: string;
  cancelUrl: string;
  expiresAt: number;
  /** The tenant's customer at the provider, when it already has one. */
  customerId: string | null;
  /** Base of this API's URLs (`https://host/api/v1`), for providers without a hosted page. */
  apiBase: string;
}

/** Where the customer pays. */
export interface ProviderCheckout {
  checkoutUrl: string;
  providerSessionId: string | null;
}

/**
 * A way of taking payment (BILLING_PROVIDER): `manual` (an administrator completes checkouts) or
 * `stripe` (Checkout Sessions, completed by Stripe's signed webhook).
 */
export interface BillingProvider {
  readonly name: BillingProviderName;
  /** Whether the tier can be bought through this provider (Stripe: a price id is configured). */
  sells(tier: Tier): boolean;
  createCheckout(request: CheckoutRequest): Promise<ProviderCheckout>;
  /** Closes a superseded checkout at the provider (best effort: the service already expired it). */
  expireCheckout(providerSessionId: string): Promise<void>;
}

/** Checkouts an administrator completes (`POST /admin/checkouts/{id}/complete`): works offline. */
export const manualProvider: BillingProvider = {
  name: 'manual',
  sells: (tier) => tier !== 'free',
  // No hosted payment page: the URL reads the checkout, so a client can poll for its completion.
  createCheckout: async (request) => ({
    checkoutUrl: `${request.apiBase}/subscription/checkouts/${request.checkoutId}`,
    providerSessionId: null,
  }),
  expireCheckout: async () => {},
};
