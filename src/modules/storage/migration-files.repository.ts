import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { StorageMigrationFilesTable } from './storage.tables.ts';

export type MigrationFileRow = StorageMigrationFilesTable;

/** The inventory of one migration: a row per document, with its copy state and retries. */
export class MigrationFilesRepository {
  /** What the tenant stores now: the totals a new migration starts with. */
  async totals(db: Executor, tenantId: string): Promise<{ files: number; bytes: number }> {
    const row = await db
      .selectFrom('documents')
      .select((eb) => [eb.fn.countAll<number>().as('files'), eb.fn.coalesce(eb.fn.sum<number>('file_size'), eb.lit(0)).as('bytes')])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes) };
  }

  /** Files and bytes of a migration's inventory (the record's totals). */
  async inventoryTotals(db: Executor, tenantId: string, migrationId: string): Promise<{ files: number; bytes: number }> {
    const row = await db
      .selectFrom('storage_migration_files')
      .select((eb) => [eb.fn.countAll<number>().as('files'), eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('bytes')])
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes) };
  }

  /** Adds every document of the tenant not in the inventory yet; answers how many came in. */
  async addMissing(db: Executor, tenantId: string, migrationId: string, now: number): Promise<number> {
    const result = await db
      .insertInto('storage_migration_files')
      .columns(['migration_id', 'document_id', 'tenant_id', 'storage_key', 'thumbnail_key', 'size', 'sha256', 'status', 'attempts', 'next_attempt_at'])
      .expression((eb) =>
        eb
          .selectFrom('documents as d')
          .select((s) => [
            s.val(migrationId).as('migration_id'),
            'd.id',
            'd.tenant_id',
            'd.storage_key',
            'd.thumbnail_key',
            'd.file_size',
            'd.sha256',
            s.val('pending').as('status'),
            s.val(0).as('attempts'),
            s.val(now).as('next_attempt_at'),
          ])
          .where('d.tenant_id', '=', tenantId)
          .where(notInInventory(tenantId, migrationId)),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  /** The tenant's documents the inventory does not list (stored after it was taken), in id order. */
  outsideInventory(db: Executor, tenantId: string, migrationId: string, afterDocumentId: string, limit: number) {
    return db
      .selectFrom('documents as d')
      .select(['d.id', 'd.storage_key', 'd.thumbnail_key', 'd.sha256'])
      .where('d.tenant_id', '=', tenantId)
      .where('d.id', '>', afterDocumentId)
      .where(notInInventory(tenantId, migrationId))
      .orderBy('d.id')
      .limit(limit)
      .execute();
  }

  /** Pending files whose (re)try is due, oldest due first. */
  due(db: Executor, tenantId: string, migrationId: string, now: number, limit: number): Promise<MigrationFileRow[]> {
    return db
      .selectFrom('storage_migration_files')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .orderBy('document_id')
      .limit(limit)
      .execute();
  }

  /** When the next pending file is due; null when none is pending. */
  async nextDueAt(db: Executor, tenantId: string, migrationId: string): Promise<number | null> {
    const row = await db
      .selectFrom('storage_migration_files')
      .select((eb) => eb.fn.min<number>('next_attempt_at').as('at'))
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  /** Moves one file out of `pending`; false when it was not pending any more (a second runner). */
  async settle(db: Executor, f: Pick<MigrationFileRow, 'migration_id' | 'document_id'>, changes: Partial<MigrationFileRow>): Promise<boolean> {
    const result = await db
      .updateTable('storage_migration_files')
      .set(changes)
      .where('migration_id', '=', f.migration_id)
      .where('document_id', '=', f.document_id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  failed(db: Executor, tenantId: string, migrationId: string): Promise<MigrationFileRow[]> {
    return db
      .selectFrom('storage_migration_files')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', 'failed')
      .orderBy('document_id')
      .execute();
  }

  async countFailed(db: Executor, tenantId: string, migrationId: string): Promise<number> {
    const row = await db
      .selectFrom('storage_migration_files')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Puts the failed files back in the queue with fresh retries (the retry endpoint). */
  async requeueFailed(db: Executor, tenantId: string, migrationId: string, now: number): Promise<number> {
    const result = await db
      .updateTable('storage_migration_files')
      .set({ status: 'pending', attempts: 0, error: null, next_attempt_at: now })
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Copied files after `afterDocumentId`, in document order (the source purge and the cutover check). */
  page(db: Executor, tenantId: string, migrationId: string, status: string, afterDocumentId: string, limit: number): Promise<MigrationFileRow[]> {
    return db
      .selectFrom('storage_migration_files')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', status)
      .where('document_id', '>', afterDocumentId)
      .orderBy('document_id')
      .limit(limit)
      .execute();
  }
}

/** The outer query's document `d` has no file row in the migration's inventory. */
function notInInventory(tenantId: string, migrationId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`not exists (select 1 from storage_migration_files f where f.tenant_id = ${tenantId} and f.migration_id = ${migrationId} and f.document_id = d.id)`;
}
