import type { Executor } from '../../db/executor.ts';
import type { AiCreditChargesTable } from './credits.tables.ts';

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

  async insert(db: Executor, row: AiCreditChargesTable): Promise<void> {
    await db.insertInto('ai_credit_charges').values(row).execute();
  }
}
