import { expressionBuilder, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import { storedFiles } from '../documents/index.ts';
import type { StorageMigrationFilesTable } from './storage.tables.ts';

/** One document of a migration's inventory, with its copy state and retries. */
export interface MigrationFile {
  migrationId: string;
  documentId: string;
  tenantId: string;
  storageKey: string;
  thumbnailKey: string | null;
  size: number;
  sha256: string;
  /** `pending`, `copied`, `failed`, `skipped`. */
  status: string;
  attempts: number;
  error: string | null;
  lastAttemptAt: number | null;
  nextAttemptAt: number;
}

/** A document stored after the inventory was taken (what the straggler rescue copies). */
export interface UninventoriedDocument {
  id: string;
  storageKey: string;
  thumbnailKey: string | null;
  sha256: string;
}

export function toMigrationFile(row: Selectable<StorageMigrationFilesTable>): MigrationFile {
  return {
    migrationId: row.migration_id,
    documentId: row.document_id,
    tenantId: row.tenant_id,
    storageKey: row.storage_key,
    thumbnailKey: row.thumbnail_key,
    size: Number(row.size),
    sha256: row.sha256,
    status: row.status,
    attempts: Number(row.attempts),
    error: row.error,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
  };
}

const COLUMNS: ColumnMap<MigrationFile, StorageMigrationFilesTable> = {
  migrationId: 'migration_id',
  documentId: 'document_id',
  tenantId: 'tenant_id',
  storageKey: 'storage_key',
  thumbnailKey: 'thumbnail_key',
  size: 'size',
  sha256: 'sha256',
  status: 'status',
  attempts: 'attempts',
  error: 'error',
  lastAttemptAt: 'last_attempt_at',
  nextAttemptAt: 'next_attempt_at',
};

/** What settling a file may change (not which file it is). */
export type MigrationFileChanges = Partial<Omit<MigrationFile, 'migrationId' | 'documentId' | 'tenantId'>>;

/** The inventory of one migration: a row per document, with its copy state and retries. */
export class MigrationFilesRepository {
  /** Files and bytes of a migration's inventory (the record's totals). */
  async inventoryTotals(
    db: Executor,
    tenantId: string,
    migrationId: string,
  ): Promise<{ files: number; bytes: number }> {
    const row = await db
      .selectFrom('storage_migration_files')
      .select((eb) => [
        eb.fn.countAll<number>().as('files'),
        eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('bytes'),
      ])
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes) };
  }

  /** Adds every document of the tenant not in the inventory yet; answers how many came in. */
  async addMissing(db: Executor, tenantId: string, migrationId: string, now: number): Promise<number> {
    const result = await db
      .insertInto('storage_migration_files')
      .columns([
        'migration_id',
        'document_id',
        'tenant_id',
        'storage_key',
        'thumbnail_key',
        'size',
        'sha256',
        'status',
        'attempts',
        'next_attempt_at',
      ])
      .expression((eb) =>
        eb
          .selectFrom(storedFiles(tenantId).as('d'))
          .select((s) => [
            s.val(migrationId).as('migration_id'),
            'd.document_id',
            'd.tenant_id',
            'd.storage_key',
            'd.thumbnail_key',
            'd.size',
            'd.sha256',
            s.val('pending').as('status'),
            s.val(0).as('attempts'),
            s.val(now).as('next_attempt_at'),
          ])
          .where(notInInventory(tenantId, migrationId)),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  /** The tenant's documents the inventory does not list (stored after it was taken), in id order. */
  async outsideInventory(
    db: Executor,
    tenantId: string,
    migrationId: string,
    afterDocumentId: string,
    limit: number,
  ): Promise<UninventoriedDocument[]> {
    const rows = await db
      .selectFrom(storedFiles(tenantId).as('d'))
      .select(['d.document_id', 'd.storage_key', 'd.thumbnail_key', 'd.sha256'])
      .where('d.document_id', '>', afterDocumentId)
      .where(notInInventory(tenantId, migrationId))
      .orderBy('d.document_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.document_id,
      storageKey: r.storage_key,
      thumbnailKey: r.thumbnail_key,
      sha256: r.sha256,
    }));
  }

  /** Pending files whose (re)try is due, oldest due first. */
  async due(db: Executor, tenantId: string, migrationId: string, now: number, limit: number): Promise<MigrationFile[]> {
    const rows = await db
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
    return rows.map(toMigrationFile);
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
  async settle(
    db: Executor,
    f: Pick<MigrationFile, 'migrationId' | 'documentId'>,
    changes: MigrationFileChanges,
  ): Promise<boolean> {
    const result = await db
      .updateTable('storage_migration_files')
      .set(columnsOf(COLUMNS, changes))
      .where('migration_id', '=', f.migrationId)
      .where('document_id', '=', f.documentId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Changes one file whatever its state (a copy found missing at cutover goes back to `pending`). */
  async update(
    db: Executor,
    f: Pick<MigrationFile, 'migrationId' | 'documentId'>,
    changes: MigrationFileChanges,
  ): Promise<void> {
    await db
      .updateTable('storage_migration_files')
      .set(columnsOf(COLUMNS, changes))
      .where('migration_id', '=', f.migrationId)
      .where('document_id', '=', f.documentId)
      .execute();
  }

  async failed(db: Executor, tenantId: string, migrationId: string): Promise<MigrationFile[]> {
    const rows = await db
      .selectFrom('storage_migration_files')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', 'failed')
      .orderBy('document_id')
      .execute();
    return rows.map(toMigrationFile);
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

  /** Subquery: the documents whose copy failed (still only in the source), for a statement over documents. */
  failedDocumentIds(tenantId: string, migrationId: string) {
    return expressionBuilder<DB, never>()
      .selectFrom('storage_migration_files')
      .select('storage_migration_files.document_id')
      .where('storage_migration_files.tenant_id', '=', tenantId)
      .where('storage_migration_files.migration_id', '=', migrationId)
      .where('storage_migration_files.status', '=', 'failed');
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
  async page(
    db: Executor,
    tenantId: string,
    migrationId: string,
    status: string,
    afterDocumentId: string,
    limit: number,
  ): Promise<MigrationFile[]> {
    const rows = await db
      .selectFrom('storage_migration_files')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('migration_id', '=', migrationId)
      .where('status', '=', status)
      .where('document_id', '>', afterDocumentId)
      .orderBy('document_id')
      .limit(limit)
      .execute();
    return rows.map(toMigrationFile);
  }
}

/** The outer query's document `d` has no file row in the migration's inventory. */
function notInInventory(tenantId: string, migrationId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`not exists (select 1 from storage_migration_files f where f.tenant_id = ${tenantId} and f.migration_id = ${migrationId} and f.document_id = d.document_id)`;
}
