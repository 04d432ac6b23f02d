import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { AiCreditChargesTable } from './credits.tables.ts';

/** One AI credit charge as services see it (docs/api-decisions.md §5). */
export interface CreditCharge {
  id: string;
  tenantId: string;
  /** The billing month, `YYYY-MM` (UTC). */
  period: string;
  /** Thousandths of a credit. */
  millicredits: number;
  reason: string;
  /** What was charged for (a chat message id, a query hash), when there is one. */
  reference: string | null;
  createdAt: number;
}

/** SQL of the AI credit ledger; every query takes the tenant. */
export class CreditsRepository {
  async usedIn(db: Executor, tenantId: string, period: string): Promise<number> {
    const row = await db
      .selectFrom('ai_credit_charges')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('millicredits'), eb.lit(0)).as('used'))
      .where('tenant_id', '=', tenantId)
      .where('period', '=', period)
      .executeTakeFirstOrThrow();
    return Number(row.used);
  }

  async insert(db: Executor, charge: CreditCharge): Promise<void> {
    const row: AiCreditChargesTable = {
      id: charge.id,
      tenant_id: charge.tenantId,
      period: charge.period,
      millicredits: charge.millicredits,
      reason: charge.reason,
      reference: charge.reference,
      created_at: charge.createdAt,
    };
    await db.insertInto('ai_credit_charges').values(row).execute();
  }

  /**
   * PostgreSQL: inserts the charge in one statement (`charge_ai_credits`, migration 20261129_0400)
   * when the month's total stays below `belowMillicredits` (null: no bound); false, writing nothing,
   * when it would not.
   */
  async insertIfBelow(db: Executor, charge: CreditCharge, belowMillicredits: number | null): Promise<boolean> {
    const result = await sql<{
      charged: boolean;
    }>`select charge_ai_credits(${charge.id}, ${charge.tenantId}, ${charge.period},
      ${charge.millicredits}, ${charge.reason}, ${charge.reference}, ${charge.createdAt}, ${belowMillicredits}) as charged`.execute(
      db,
    );
    return result.rows[0]?.charged === true;
  }
}
