import type { Executor } from '../../db/executor.ts';
import type { TierChange, TierChangeHook } from '../../domain/tier-change.ts';
import { TIER_LIMITS } from '../../domain/tiers.ts';
import type { EventLog } from '../../events/event-log.ts';
import { newId } from '../../lib/ids.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { SubscriptionRepository } from './subscription.repository.ts';

/** What a downgrade takes away that another module holds: active workflows are paused. */
export interface WorkflowPauser {
  pauseAllActive(trx: Executor, tenantId: string): Promise<number>;
}

/** Who hears of a tier change, and how: the tenant's owners and admins, by mail. */
export interface TierChangeMail {
  mail: Pick<ModuleServices['mail'], 'enqueue'>;
  members: Pick<ModuleServices['members'], 'administrators'>;
}

/**
 * The hook run inside every tier change's transaction (checkout, administrator, provider event):
 * the history row, the `subscription.tier_changed` event, a mail to the tenant's owners and admins,
 * and pausing active workflows when the new tier has none. Documents above a lower quota stay; new
 * uploads are refused by the quota.
 */
export function recordTierChange(
  deps: { repo: SubscriptionRepository; events: EventLog; workflows: WorkflowPauser } & TierChangeMail,
): TierChangeHook {
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
      data: {
        from_tier: change.from,
        to_tier: change.to,
        reason: change.cause.reason,
        changed_by: change.cause.actor,
        reference: change.cause.reference,
      },
    });
    const data = { fromTier: change.from, toTier: change.to, reason: change.cause.reason };
    for (const admin of await deps.members.administrators(trx, change.tenantId)) {
      await deps.mail.enqueue(trx, {
        tenantId: change.tenantId,
        kind: 'subscription_changed',
        to: admin.email,
        user: admin,
        data,
        at: change.at,
      });
    }
    if (!TIER_LIMITS[change.to].features.workflows) await deps.workflows.pauseAllActive(trx, change.tenantId);
  };
}
