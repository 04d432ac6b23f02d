import type { Executor } from '../db/executor.ts';
import type { Tier } from './tiers.ts';

/** Why a tenant's tier changed (issue 18: checkout, administrator, billing provider event). */
export const TIER_CHANGE_REASONS = ['checkout', 'admin', 'provider_event'] as const;
export type TierChangeReason = (typeof TIER_CHANGE_REASONS)[number];

/** Who and what caused a tier change: `actor` a user id, `administrator`, or the provider's name; `reference` a checkout or provider event id. */
export interface TierChangeCause {
  reason: TierChangeReason;
  actor: string | null;
  reference: string | null;
}

export interface TierChange {
  tenantId: string;
  from: Tier;
  to: Tier;
  cause: TierChangeCause;
  at: number;
}

/** Runs inside the transaction that changes a tier: history, events, and pausing what the new tier lacks. */
export type TierChangeHook = (trx: Executor, change: TierChange) => Promise<void>;
