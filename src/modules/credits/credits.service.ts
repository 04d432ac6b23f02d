import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { lockTenant } from '../../db/locks.ts';
import type { Tenant } from '../../domain/tenant.ts';
import { TIER_LIMITS } from '../../domain/tiers.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { prefixedId } from '../../lib/ids.ts';
import type { CreditsRepository } from './credits.repository.ts';

/** What each priced operation costs, in credits (docs/api-decisions.md §5). */
export const CREDIT_COSTS = {
  semantic_search: 0.5,
  hybrid_search: 0.5,
  enhanced_search: 1,
  chat_ask: 1,
} as const;
export type CreditReason = keyof typeof CREDIT_COSTS;

/** A tenant's credits in the current month; `limit` and `remaining` are null when unlimited. */
export interface CreditBalance {
  period: string;
  limit: number | null;
  used: number;
  remaining: number | null;
}

/** The billing month of an instant, `YYYY-MM` in UTC. */
export function billingPeriod(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

const MILLI = 1000;

/**
 * The AI credit ledger: every priced operation charges inside the transaction that records its
 * work, so a failed operation (rolled back) is never charged, and a month's credits cannot be
 * overspent by concurrent requests (the tenant row is locked on PostgreSQL; SQLite writes one at a time).
 */
export class CreditsService {
  readonly #deps: { database: Database; clock: Clock; credits: CreditsRepository };
  constructor(deps: { database: Database; clock: Clock; credits: CreditsRepository }) {
    this.#deps = deps;
  }

  async balance(tenant: Tenant, db: Executor = this.#deps.database.db): Promise<CreditBalance> {
    const period = billingPeriod(this.#deps.clock.now());
    const used = (await this.#deps.credits.usedIn(db, tenant.id, period)) / MILLI;
    const limit = TIER_LIMITS[tenant.tier].aiCreditsPerMonth;
    return { period, limit, used, remaining: limit === null ? null : Math.max(0, limit - used) };
  }

  /** Throws 402 `insufficient_credits` unless `reason`'s cost fits in what is left this month. */
  async assertAvailable(tenant: Tenant, reason: CreditReason, db?: Executor): Promise<void> {
    const needed = CREDIT_COSTS[reason];
    const { remaining } = await this.balance(tenant, db);
    if (remaining !== null && remaining < needed) throw insufficient(needed, remaining);
  }

  /** Charges `reason`'s cost in the caller's transaction; throws 402 when the month's credits do not cover it. */
  async charge(trx: Executor, tenant: Tenant, reason: CreditReason, reference: string | null = null): Promise<void> {
    const { database, clock, credits } = this.#deps;
    await lockTenant(trx, database.dialect, tenant.id);
    const needed = CREDIT_COSTS[reason];
    const { period, remaining } = await this.balance(tenant, trx);
    if (remaining !== null && remaining < needed) throw insufficient(needed, remaining);
    await credits.insert(trx, {
      id: prefixedId('crd'),
      tenantId: tenant.id,
      period,
      millicredits: Math.round(needed * MILLI),
      reason,
      reference,
      createdAt: clock.now(),
    });
  }
}

function insufficient(needed: number, remaining: number): AppError {
  return new AppError(402, 'insufficient_credits', `This needs ${needed} AI credits and ${remaining} are left this month`, {
    details: { needed, remaining },
  });
}
