import type { Database } from '../../db/database.ts';
import { lockTenant } from '../../db/locks.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { isTenantAdmin } from '../../domain/roles.ts';
import { TIER_LIMITS, type Tier } from '../../domain/tiers.ts';
import { sandboxLimit } from '../../http/rate-limit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { errors } from '../../lib/errors.ts';
import { prefixedId } from '../../lib/ids.ts';
import type { CreditsService } from '../credits/index.ts';
import type { BillingProvider } from './billing-provider.ts';
import type { Checkout, SubscriptionRepository } from './subscription.repository.ts';

/** A tenant's stored documents and bytes, from the counters the storage quota enforces. */
export type StorageUsage = { usage(tenantId: string): Promise<{ documents: number; bytes: number }> };

/** docs/api-decisions.md §5: the sandbox holds at most this many documents (documents/upload-quota.ts enforces it). */
const SANDBOX_DOCUMENTS = 100;

interface Deps {
  database: Database;
  clock: Clock;
  logger: Logger;
  repo: SubscriptionRepository;
  provider: BillingProvider;
  credits: CreditsService;
  storage: StorageUsage;
  checkoutTtlMs: number;
}

/** The calendar month (UTC) of an instant: the period AI credits are counted in. */
function monthOf(at: number): { start: number; end: number } {
  const d = new Date(at);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

function requireBillingAdmin(auth: AuthContext, what: string): void {
  if (!isTenantAdmin(auth)) throw errors.insufficientPermissions(`Only an owner or admin may ${what}`);
}

function checkUrl(field: string, value: string): void {
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw errors.field(field, 'must be an absolute http or https URL');
}

/**
 * Subscription status, checkouts and tier history (contract §13, docs/subscription.md). Status reads
 * the caller's tier as authentication resolved it, and the same counters enforcement reads, so what
 * it shows is what is enforced. Checkouts are started by owners, admins and API keys.
 */
export class SubscriptionService {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async status(auth: AuthContext) {
    const { tenant } = auth;
    const sandbox = tenant.sandboxOf !== null;
    const limits = TIER_LIMITS[tenant.tier];
    const [subscription, stored, credits] = await Promise.all([
      this.deps.repo.findSubscription(this.deps.database.db, tenant.sandboxOf ?? tenant.id),
      this.deps.storage.usage(tenant.id),
      this.deps.credits.balance(tenant),
    ]);
    const period = monthOf(this.deps.clock.now());
    const rpm = limits.requestsPerMinute;
    return {
      tier: tenant.tier,
      status: subscription?.status ?? 'active',
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      cancelAt: subscription?.cancelAt ?? null,
      limits: {
        requestsPerMinute: rpm === null ? null : sandbox ? sandboxLimit(rpm) : rpm,
        storageBytes: limits.storageBytes,
        aiCredits: credits.limit,
        documents: sandbox ? SANDBOX_DOCUMENTS : null,
      },
      usage: { storageBytes: stored.bytes, documents: stored.documents, aiCreditsUsed: credits.used },
      features: limits.features,
    };
  }

  history(auth: AuthContext, page: { limit: number; offset: number }) {
    requireBillingAdmin(auth, 'read the subscription history');
    return this.deps.repo.listTierChanges(this.deps.database.db, auth.tenant.sandboxOf ?? auth.tenant.id, page);
  }

  /**
   * Opens a checkout for another tier with the configured provider; a tenant has one open checkout,
   * so an earlier open one expires. Billing is the live tenant's: the sandbox cannot buy.
   */
  async startCheckout(
    auth: AuthContext,
    input: { tier: Tier; success_url: string; cancel_url: string },
    apiBase: string,
  ): Promise<Checkout> {
    requireBillingAdmin(auth, 'start a checkout');
    if (auth.tenant.sandboxOf !== null)
      throw errors.forbidden('Subscriptions are bought on the live API, not in the sandbox');
    const { database, clock, repo, provider } = this.deps;
    if (input.tier === auth.tenant.tier) throw errors.field('tier', `is already the current tier (${input.tier})`);
    if (!provider.sells(input.tier)) throw errors.field('tier', `cannot be bought through checkout (${input.tier})`);
    checkUrl('success_url', input.success_url);
    checkUrl('cancel_url', input.cancel_url);
    const now = clock.now();
    const id = prefixedId('chk');
    const expiresAt = now + this.deps.checkoutTtlMs;
    const tenantId = auth.tenant.id;
    const customer = (await repo.findSubscription(database.db, tenantId))?.providerCustomerId ?? null;
    const opened = await provider.createCheckout({
      checkoutId: id,
      tenantId,
      tier: input.tier,
      successUrl: input.success_url,
      cancelUrl: input.cancel_url,
      expiresAt,
      customerId: customer,
      apiBase,
    });
    const checkout: Checkout = {
      id,
      tenantId,
      tier: input.tier,
      status: 'open',
      provider: provider.name,
      providerSessionId: opened.providerSessionId,
      checkoutUrl: opened.checkoutUrl,
      successUrl: input.success_url,
      cancelUrl: input.cancel_url,
      createdBy: auth.userId,
      expiresAt,
      completedAt: null,
      createdAt: now,
    };
    const superseded = await database.db.transaction().execute(async (trx) => {
      await lockTenant(trx, database.dialect, tenantId);
      const expired = await repo.expireOpenCheckouts(trx, tenantId);
      await repo.insertCheckout(trx, checkout);
      return expired;
    });
    await this.closeAtProvider(superseded);
    return checkout;
  }

  /** A checkout of the caller's tenant (its status, for clients polling after the redirect); billing is for owners and admins, as starting one is. */
  async checkout(auth: AuthContext, id: string): Promise<Checkout> {
    requireBillingAdmin(auth, 'read a checkout');
    const row = await this.deps.repo.findCheckoutForTenant(this.deps.database.db, auth.tenant.id, id);
    if (!row) throw errors.notFound('checkout', id);
    return row;
  }

  private async closeAtProvider(checkouts: Checkout[]): Promise<void> {
    for (const old of checkouts) {
      if (!old.providerSessionId || old.provider !== this.deps.provider.name) continue;
      await this.deps.provider.expireCheckout(old.providerSessionId).catch((error: unknown) => {
        this.deps.logger.warn(
          { err: error, checkout: old.id },
          'could not expire a superseded checkout at the provider',
        );
      });
    }
  }
}
