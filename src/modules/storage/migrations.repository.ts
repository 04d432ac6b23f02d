import type { Insertable, Selectable } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import { newId } from '../../lib/ids.ts';
import type { ProviderName } from './storage-providers.ts';
import type { StorageMigrationsTable } from './storage.tables.ts';

/** One storage migration of a tenant, as the run and the services see it. */
export interface StorageMigration {
  id: string;
  tenantId: string;
  sourceProvider: ProviderName;
  targetProvider: ProviderName;
  /** `pending`, `in_progress`, `completed`, `completed_with_errors`, `failed`, `cancelled`. */
  status: string;
  /** `preparation`, `copy`, `cutover`, `completion`, `done`. */
  phase: string;
  totalFiles: number;
  migratedFiles: number;
  failedFiles: number;
  skippedFiles: number;
  totalBytes: number;
  migratedBytes: number;
  currentFile: string | null;
  initiatedByEmail: string | null;
  cancelReason: string | null;
  error: string | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  cancelledAt: number | null;
  /** When the source copies are deleted (the retention period's end). */
  purgeAt: number | null;
  purgedAt: number | null;
  updatedAt: number;
}

/** What a state change may set (the record's identity and `updatedAt`, given apart, never). */
export type StorageMigrationChanges = Partial<Omit<StorageMigration, 'id' | 'tenantId' | 'updatedAt'>>;

export function toStorageMigration(row: Selectable<StorageMigrationsTable>): StorageMigration {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sourceProvider: row.source_provider as ProviderName,
    targetProvider: row.target_provider as ProviderName,
    status: row.status,
    phase: row.phase,
    totalFiles: Number(row.total_files),
    migratedFiles: Number(row.migrated_files),
    failedFiles: Number(row.failed_files),
    skippedFiles: Number(row.skipped_files),
    totalBytes: Number(row.total_bytes),
    migratedBytes: Number(row.migrated_bytes),
    currentFile: row.current_file,
    initiatedByEmail: row.initiated_by_email,
    cancelReason: row.cancel_reason,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    cancelledAt: row.cancelled_at,
    purgeAt: row.purge_at,
    purgedAt: row.purged_at,
    updatedAt: row.updated_at,
  };
}

const COLUMNS: ColumnMap<StorageMigration, StorageMigrationsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  sourceProvider: 'source_provider',
  targetProvider: 'target_provider',
  status: 'status',
  phase: 'phase',
  totalFiles: 'total_files',
  migratedFiles: 'migrated_files',
  failedFiles: 'failed_files',
  skippedFiles: 'skipped_files',
  totalBytes: 'total_bytes',
  migratedBytes: 'migrated_bytes',
  currentFile: 'current_file',
  initiatedByEmail: 'initiated_by_email',
  cancelReason: 'cancel_reason',
  error: 'error',
  createdAt: 'created_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  cancelledAt: 'cancelled_at',
  purgeAt: 'purge_at',
  purgedAt: 'purged_at',
  updatedAt: 'updated_at',
};

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
  async insert(db: Executor, migration: StorageMigration): Promise<void> {
    await db
      .insertInto('storage_migrations')
      .values(columnsOf(COLUMNS, migration) as Insertable<StorageMigrationsTable>)
      .execute();
  }

  async findById(db: Executor, id: string): Promise<StorageMigration | null> {
    const row = await db.selectFrom('storage_migrations').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toStorageMigration(row) : null;
  }

  async latestForTenant(db: Executor, tenantId: string): Promise<StorageMigration | undefined> {
    const row = await db
      .selectFrom('storage_migrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toStorageMigration(row);
  }

  async running(db: Executor, tenantId: string): Promise<StorageMigration | undefined> {
    const row = await db
      .selectFrom('storage_migrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', RUNNING_STATES)
      .executeTakeFirst();
    return row && toStorageMigration(row);
  }

  async listForTenant(db: Executor, tenantId: string): Promise<StorageMigration[]> {
    const rows = await db
      .selectFrom('storage_migrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toStorageMigration);
  }

  async update(db: Executor, id: string, changes: StorageMigrationChanges, now: number): Promise<void> {
    await db
      .updateTable('storage_migrations')
      .set(columnsOf(COLUMNS, { ...changes, updatedAt: now }))
      .where('id', '=', id)
      .execute();
  }

  /** Moves the status only when it still is one of `from` (a cancel racing the run); true when it moved. */
  async transition(
    db: Executor,
    id: string,
    from: readonly string[],
    changes: StorageMigrationChanges,
    now: number,
  ): Promise<boolean> {
    const result = await db
      .updateTable('storage_migrations')
      .set(columnsOf(COLUMNS, { ...changes, updatedAt: now }))
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

  async audit(
    db: Executor,
    entry: {
      tenantId: string;
      migrationId: string | null;
      action: string;
      detail: Record<string, unknown>;
      at: number;
    },
  ): Promise<void> {
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
