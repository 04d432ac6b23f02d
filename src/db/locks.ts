import type { Executor } from './executor.ts';
import type { DialectName } from './database.ts';

/**
 * Serialises a tenant's transactions that check a tenant-wide invariant and then write (storage
 * quota, "keeps an active owner"): on PostgreSQL the tenant row is locked until commit. On SQLite
 * writers already run one at a time (transactions begin IMMEDIATE), so there is nothing to do.
 */
export async function lockTenant(trx: Executor, dialect: DialectName, tenantId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await trx.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().executeTakeFirst();
}
