import type { Tenant, TenantSettings } from '../../../domain/tenant.ts';
import { iso } from '../../../lib/clock.ts';
import type { CreatedTenant } from './tenants.service.ts';

/** A tenant as the administrator's API shows it. */
export function presentTenant(t: Tenant) {
  return {
    id: t.id,
    name: t.name,
    subdomain: t.subdomain,
    tier: t.tier,
    status: t.status,
    cors_origins: t.corsOrigins,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

/** A new tenant, its owner and its two API keys (shown in this answer only). */
export function presentCreatedTenant(created: CreatedTenant) {
  const { tenant, owner } = created;
  return {
    tenant: {
      id: tenant.id,
      name: tenant.name,
      subdomain: tenant.subdomain,
      tier: tenant.tier,
      created_at: iso(tenant.createdAt),
    },
    owner: { id: owner.id, email: owner.email, name: owner.name, role: owner.role },
    api_key: created.apiKey!,
    test_api_key: created.testApiKey!,
  };
}

/** The tenant's settings (`GET/PATCH /tenant/settings`). */
export function presentSettings(s: TenantSettings) {
  return { ai_review_threshold: s.aiReviewThreshold };
}
