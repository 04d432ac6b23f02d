import type { Executor } from '../../db/executor.ts';
import type { ProviderName } from './storage-providers.ts';

/** Where one tenant's bytes are written and looked for. */
export interface TenantStorage {
  current: ProviderName;
  write: ProviderName;
  read: ProviderName[];
  /** updated_at of the customer target, so a process notices a changed bucket; null when none. */
  customerVersion: number | null;
}

/** The default of a tenant without a row: the shared store only. */
export const SHARED_ONLY: TenantStorage = {
  current: 'shared',
  write: 'shared',
  read: ['shared'],
  customerVersion: null,
};

export class TenantStorageRepository {
  async find(db: Executor, tenantId: string): Promise<TenantStorage | null> {
    const row = await db
      .selectFrom('tenant_storage as s')
      .leftJoin('storage_customer_targets as c', 'c.tenant_id', 's.tenant_id')
      .select(['s.current_provider', 's.write_provider', 's.read_providers', 'c.updated_at as customer_version'])
      .where('s.tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      current: row.current_provider as ProviderName,
      write: row.write_provider as ProviderName,
      read: JSON.parse(row.read_providers) as ProviderName[],
      customerVersion: row.customer_version ?? null,
    };
  }

  async save(db: Executor, tenantId: string, s: Omit<TenantStorage, 'customerVersion'>, now: number): Promise<void> {
    const values = {
      current_provider: s.current,
      write_provider: s.write,
      read_providers: JSON.stringify(unique(s.read)),
      updated_at: now,
    };
    await db
      .insertInto('tenant_storage')
      .values({ tenant_id: tenantId, ...values })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
      .execute();
  }
}

function unique(list: ProviderName[]): ProviderName[] {
  return [...new Set(list)];
}
