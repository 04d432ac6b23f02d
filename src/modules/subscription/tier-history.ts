import type { Executor } from '../../db/executor.ts';
import type { TierChange, TierChangeHook } from '../../domain/tier-change.ts';
import { TIER_LIMITS } from '../../domain/tiers.ts';
import type { EventLog } from '../../events/event-log.ts';
import { newId } from '../../lib/ids.ts';
import type { SubscriptionRepository } from './subscription.repository.ts';

/** What a downgrade takes away that another module holds: active workflows are paused. */
export interface WorkflowPauser {
  pauseAllActive(trx: Executor, tenantId: string): Promise<number>;
}

/**
 * The hook run inside every tier change's transaction (checkout, administrator, provider event):
 * the history row, the `subscription.tier_changed` event, and pausing active workflows when the new
 * tier has none. Documents above a lower quota stay; new uploads are refused by the quota.
 */
export function recordTierChange(deps: { repo: SubscriptionRepository; events: EventLog; workflows: WorkflowPauser }): TierChangeHook {
  return async (trx: Executor, change: TierChange) => {
    await deps.repo.insertTierChange(trx, {
      id: newId(change.at),
      tenantId: change.tenantId,
      fromTier: change.from,
      toTier: change.to,
      reason: change.cause.reason,
      actor: change.cause.actor,
      reference: change.cause.reference,
      createdAt: change.at,
    });
    await deps.events.record(trx, {
      tenantId: change.tenantId,
      name: 'subscription.tier_changed',
      at: change.at,
      data: { from_tier: change.from, to_tier: change.to, reason: change.cause.reason, changed_by: change.cause.actor, reference: change.cause.reference },
    });
    if (!TIER_LIMITS[change.to].features.workflows) await deps.workflows.pauseAllActive(trx, change.tenantId);
  };
}
