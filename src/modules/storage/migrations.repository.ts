import type { Executor } from '../../db/executor.ts';
import { newId } from '../../lib/ids.ts';
import type { StorageMigrationsTable } from './storage.tables.ts';

export type MigrationRow = StorageMigrationsTable;

/** A migration that still runs: at most one per tenant (a partial unique index guards it). */
export const RUNNING_STATES = ['pending', 'in_progress'] as const;

/** Counters a finished file adds to its migration. */
export interface ProgressDelta {
  migratedFiles?: number;
  migratedBytes?: number;
  failedFiles?: number;
  skippedFiles?: number;
}

export class MigrationsRepository {
  async insert(db: Executor, row: MigrationRow): Promise<void> {
    await db.insertInto('storage_migrations').values(row).execute();
  }

  findById(db: Executor, id: string): Promise<MigrationRow | undefined> {
    return db.selectFrom('storage_migrations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  latestForTenant(db: Executor, tenantId: string): Promise<MigrationRow | undefined> {
    return db
      .selectFrom('storage_migrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  running(db: Executor, tenantId: string): Promise<MigrationRow | undefined> {
    return db
      .selectFrom('storage_migrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', RUNNING_STATES)
      .executeTakeFirst();
  }

  listForTenant(db: Executor, tenantId: string): Promise<MigrationRow[]> {
    return db
      .selectFrom('storage_migrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async update(db: Executor, id: string, changes: Partial<Omit<MigrationRow, 'id' | 'tenant_id'>>, now: number): Promise<void> {
    await db
      .updateTable('storage_migrations')
      .set({ ...changes, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** Moves the status only when it still is one of `from` (a cancel racing the run); true when it moved. */
  async transition(db: Executor, id: string, from: readonly string[], changes: Partial<MigrationRow>, now: number): Promise<boolean> {
    const result = await db
      .updateTable('storage_migrations')
      .set({ ...changes, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async addProgress(db: Executor, id: string, d: ProgressDelta, now: number): Promise<void> {
    await db
      .updateTable('storage_migrations')
      .set((eb) => ({
        migrated_files: eb('migrated_files', '+', d.migratedFiles ?? 0),
        migrated_bytes: eb('migrated_bytes', '+', d.migratedBytes ?? 0),
        failed_files: eb('failed_files', '+', d.failedFiles ?? 0),
        skipped_files: eb('skipped_files', '+', d.skippedFiles ?? 0),
        updated_at: now,
      }))
      .where('id', '=', id)
      .execute();
  }

  async audit(db: Executor, entry: { tenantId: string; migrationId: string | null; action: string; detail: Record<string, unknown>; at: number }): Promise<void> {
    await db
      .insertInto('storage_audit')
      .values({
        id: newId(entry.at),
        tenant_id: entry.tenantId,
        migration_id: entry.migrationId,
        action: entry.action,
        detail: JSON.stringify(entry.detail),
        created_at: entry.at,
      })
      .execute();
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('storage_migrations').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('storage_audit').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('tenant_storage').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('storage_customer_targets').where('tenant_id', '=', tenantId).execute();
  }
}
