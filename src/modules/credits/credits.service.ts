import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { lockTenant } from '../../db/locks.ts';
import type { Tenant } from '../../domain/tenant.ts';
import { TIER_LIMITS } from '../../domain/tiers.ts';
import type { Clock } from '../../lib/clock.ts';
import { type AppError, errors } from '../../lib/errors.ts';
import { prefixedId } from '../../lib/ids.ts';
import type { CreditCharge, CreditsRepository } from './credits.repository.ts';

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

/** Shares of the month's credits at which the tenant's administrators are told (the last: nothing more fits). */
export const USAGE_THRESHOLDS = [80, 100] as const;

/** Told, inside the charge's transaction, when a charge crosses a threshold of the month's credits. */
export type UsageNotifier = (
  trx: Executor,
  tenant: Tenant,
  crossed: { percent: number; used: number; limit: number; period: string },
) => Promise<void>;

/**
 * The thresholds a charge from `before` to `after` used credits crosses. 100 % is crossed when what
 * is left no longer pays for the cheapest operation: every priced call is refused from then on.
 */
export function crossedThresholds(before: number, after: number, limit: number): number[] {
  const cheapest = Math.min(...Object.values(CREDIT_COSTS));
  const reached = (used: number, percent: number) =>
    percent >= 100 ? limit - used < cheapest : used >= (limit * percent) / 100;
  return USAGE_THRESHOLDS.filter((p) => !reached(before, p) && reached(after, p));
}

/**
 * The AI credit ledger: every priced operation charges inside the transaction that records its
 * work, so a failed operation (rolled back) is never charged, and a month's credits cannot be
 * overspent by concurrent requests (the tenant row is locked on PostgreSQL; SQLite writes one at a time).
 */
export class CreditsService {
  readonly #deps: { database: Database; clock: Clock; credits: CreditsRepository; notify?: UsageNotifier };
  constructor(deps: { database: Database; clock: Clock; credits: CreditsRepository; notify?: UsageNotifier }) {
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

  /**
   * Charges `reason`'s cost in the caller's transaction; throws 402 when the month's credits do not
   * cover it. A charge that crosses 80 % or 100 % of the month's credits tells the administrators.
   */
  async charge(trx: Executor, tenant: Tenant, reason: CreditReason, reference: string | null = null): Promise<void> {
    const { database, clock, credits } = this.#deps;
    await lockTenant(trx, database.dialect, tenant.id);
    const needed = CREDIT_COSTS[reason];
    const { period, remaining, used, limit } = await this.balance(tenant, trx);
    if (remaining !== null && remaining < needed) throw insufficient(needed, remaining);
    // The sandbox's credits are for trying things out: its administrators are not told.
    if (limit !== null && tenant.sandboxOf === null && this.#deps.notify) {
      for (const percent of crossedThresholds(used, used + needed, limit))
        await this.#deps.notify(trx, tenant, { percent, used: used + needed, limit, period });
    }
    await credits.insert(trx, this.#newCharge(tenant, reason, reference, period));
  }

  /**
   * Charges `reason`'s cost on its own (an operation with nothing else to write, such as a search),
   * with what `charge` promises. On PostgreSQL, while the month's total stays clear of every usage
   * threshold, that is one statement (`CreditsRepository.insertIfBelow`) instead of a transaction of
   * five; otherwise, and on SQLite, `charge` in a transaction.
   */
  async chargeAlone(tenant: Tenant, reason: CreditReason, reference: string | null = null): Promise<void> {
    const { database, clock, credits } = this.#deps;
    if (database.dialect === 'postgres') {
      const charge = this.#newCharge(tenant, reason, reference, billingPeriod(clock.now()));
      const below = fastPathBound(TIER_LIMITS[tenant.tier].aiCreditsPerMonth);
      if (below === null || below > 0) {
        if (await credits.insertIfBelow(database.db, charge, below)) return;
      }
    }
    await database.db.transaction().execute((trx) => this.charge(trx, tenant, reason, reference));
  }

  #newCharge(tenant: Tenant, reason: CreditReason, reference: string | null, period: string): CreditCharge {
    return {
      id: prefixedId('crd'),
      tenantId: tenant.id,
      period,
      millicredits: Math.round(CREDIT_COSTS[reason] * MILLI),
      reason,
      reference,
      createdAt: this.#deps.clock.now(),
    };
  }
}

/**
 * The month's total, in millicredits, from which a charge may cross a usage threshold (and, past
 * the last, be refused): the fast charge stays strictly below it. Null when the tier is unlimited.
 * Below it, neither the total before nor after a charge has reached any threshold, so nothing is
 * crossed and what is left still pays for the cheapest operation.
 */
export function fastPathBound(limit: number | null): number | null {
  if (limit === null) return null;
  const cheapest = Math.min(...Object.values(CREDIT_COSTS));
  const firstReached = USAGE_THRESHOLDS.map((percent) =>
    // `crossedThresholds`' `reached`: used ≥ limit × percent / 100, or for 100 %, limit − used < cheapest.
    percent >= 100 ? Math.floor((limit - cheapest) * MILLI) + 1 : Math.ceil((limit * percent * MILLI) / 100),
  );
  return Math.max(0, Math.min(...firstReached));
}

function insufficient(needed: number, remaining: number): AppError {
  return errors.insufficientCredits(`This needs ${needed} AI credits and ${remaining} are left this month`, {
    needed,
    remaining,
  });
}
