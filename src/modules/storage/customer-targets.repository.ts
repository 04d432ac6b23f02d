import type { Executor } from '../../db/executor.ts';
import type { StorageCustomerTargetsTable } from './storage.tables.ts';

export type CustomerTargetRow = StorageCustomerTargetsTable;

export class CustomerTargetsRepository {
  find(db: Executor, tenantId: string): Promise<CustomerTargetRow | undefined> {
    return db.selectFrom('storage_customer_targets').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  }

  async save(db: Executor, row: CustomerTargetRow): Promise<void> {
    const { tenant_id: _tenant, created_at: _created, ...changes } = row;
    await db
      .insertInto('storage_customer_targets')
      .values(row)
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(changes))
      .execute();
  }
}
