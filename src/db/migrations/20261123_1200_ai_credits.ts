import type { Kysely } from 'kysely';

/*
 * The AI credit ledger: one row per charge with its reason (docs/api-decisions.md §5), in
 * thousandths of a credit so that 0.5 is exact. The month's total is summed from the index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ai_credit_charges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('millicredits', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ai_credit_charges_period_idx')
    .on('ai_credit_charges')
    .columns(['tenant_id', 'period', 'millicredits'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ai_credit_charges').ifExists().execute();
}
