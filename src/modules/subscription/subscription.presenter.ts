import { iso } from '../../lib/clock.ts';
import type { Checkout, TierHistoryEntry } from './subscription.repository.ts';
import type { SubscriptionService } from './subscription.service.ts';

type Status = Awaited<ReturnType<SubscriptionService['status']>>;

/** Contract §13's status body. */
export function presentStatus(s: Status) {
  return {
    tier: s.tier,
    status: s.status,
    current_period_start: iso(s.currentPeriodStart),
    current_period_end: iso(s.currentPeriodEnd),
    cancel_at: iso(s.cancelAt),
    limits: {
      requests_per_minute: s.limits.requestsPerMinute,
      storage_bytes: s.limits.storageBytes,
      ai_credits: s.limits.aiCredits,
      documents: s.limits.documents,
    },
    usage: {
      storage_bytes: s.usage.storageBytes,
      documents: s.usage.documents,
      ai_credits_used: s.usage.aiCreditsUsed,
    },
    features: {
      workflows: s.features.workflows,
      import_projects: s.features.importProjects,
      enhanced_search: s.features.enhancedSearch,
      video_transcription: s.features.videoTranscription,
    },
  };
}

export function presentCheckout(c: Checkout) {
  return {
    checkout_id: c.id,
    checkout_url: c.checkoutUrl,
    tier: c.tier,
    status: c.status,
    expires_at: iso(c.expiresAt),
    ...(c.completedAt === null ? {} : { completed_at: iso(c.completedAt) }),
  };
}

export function presentCompleted(c: Checkout) {
  return {
    checkout_id: c.id,
    tenant_id: c.tenantId,
    tier: c.tier,
    status: 'completed' as const,
    completed_at: iso(c.completedAt ?? c.createdAt),
  };
}

export function presentTierChange(t: TierHistoryEntry) {
  return {
    id: t.id,
    from_tier: t.fromTier,
    to_tier: t.toTier,
    reason: t.reason,
    changed_by: t.actor,
    reference: t.reference,
    changed_at: iso(t.createdAt),
  };
}
