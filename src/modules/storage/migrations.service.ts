import { isUniqueViolation } from '../../db/db-errors.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { MigrationFile } from './migration-files.repository.ts';
import { RUNNING_STATES, type StorageMigration, type StorageMigrationChanges } from './migrations.repository.ts';
import { cancelTo } from './placement-moves.ts';
import { STORAGE_JOBS, type StorageDeps } from './runner-deps.ts';
import type { StorageConfigService } from './storage-config.service.ts';
import { isSupportedPath, type ProviderName, supportedTargetsFrom } from './storage-providers.ts';
import { SHARED_ONLY } from './tenant-storage.repository.ts';

type MigrationsServiceDeps = StorageDeps & {
  storageConfig: StorageConfigService;
  /** What the tenant stores now: the totals a new migration starts with. */
  storageUsage: ModuleServices['storageUsage'];
};

/** The administrator's storage migrations (spec "Storage migration", contract §11). */
export class MigrationsService {
  readonly #deps: MigrationsServiceDeps;

  constructor(deps: MigrationsServiceDeps) {
    this.#deps = deps;
  }

  /** Creates the `pending` record with its totals and enqueues the run. */
  async start(
    tenantId: string,
    input: { targetProvider: ProviderName; initiatedByEmail: string | null },
  ): Promise<StorageMigration> {
    const { database, clock, jobs, migrations, tenantStorage, storageUsage } = this.#deps;
    await this.#deps.storageConfig.assertTenant(tenantId);
    const db = database.db;
    const source = ((await tenantStorage.find(db, tenantId)) ?? SHARED_ONLY).current;
    const target = input.targetProvider;
    if (target === source) throw errors.conflict(`The tenant's files are already in ${source} storage`);
    if (await migrations.running(db, tenantId))
      throw errors.conflict('A storage migration of this tenant is already pending or in progress');
    if (!isSupportedPath(source, target)) {
      const allowed = supportedTargetsFrom(source);
      throw errors.field(
        'target_provider',
        `migrating from ${source} to ${target} is not supported; from ${source} the targets are: ${allowed.join(', ') || 'none'}`,
      );
    }
    await this.assertTargetConfigured(tenantId, target);
    const now = clock.now();
    const totals = await storageUsage.usage(tenantId);
    const migration: StorageMigration = {
      id: newId(now),
      tenantId,
      sourceProvider: source,
      targetProvider: target,
      status: 'pending',
      phase: 'preparation',
      totalFiles: totals.documents,
      migratedFiles: 0,
      failedFiles: 0,
      skippedFiles: 0,
      totalBytes: totals.bytes,
      migratedBytes: 0,
      currentFile: null,
      initiatedByEmail: input.initiatedByEmail ?? this.#deps.config.notifyEmail,
      cancelReason: null,
      error: null,
      createdAt: now,
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      purgeAt: null,
      purgedAt: null,
      updatedAt: now,
    };
    try {
      await db.transaction().execute(async (trx) => {
        await migrations.insert(trx, migration);
        await jobs.enqueue(trx, STORAGE_JOBS.migrate, { migrationId: migration.id }, { tenantId });
        await migrations.audit(trx, {
          tenantId,
          migrationId: migration.id,
          action: 'migration_requested',
          detail: { source, target, initiated_by_email: migration.initiatedByEmail },
          at: now,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw errors.conflict('A storage migration of this tenant is already pending or in progress');
      throw error;
    }
    return migration;
  }

  /** The tenant's latest migration (the status view); 404 when it never migrated. */
  async current(tenantId: string): Promise<StorageMigration> {
    await this.#deps.storageConfig.assertTenant(tenantId);
    const row = await this.#deps.migrations.latestForTenant(this.#deps.database.db, tenantId);
    if (!row) throw errors.notFound('storage_migration');
    return row;
  }

  async history(tenantId: string): Promise<StorageMigration[]> {
    await this.#deps.storageConfig.assertTenant(tenantId);
    return this.#deps.migrations.listForTenant(this.#deps.database.db, tenantId);
  }

  async failedFiles(migrationId: string): Promise<MigrationFile[]> {
    const m = await this.find(migrationId);
    return this.#deps.files.failed(this.#deps.database.db, m.tenantId, m.id);
  }

  /** Re-runs exactly the files that failed, on the latest migration of its tenant. */
  async retry(migrationId: string): Promise<StorageMigration> {
    const { database, clock, migrations, files, jobs } = this.#deps;
    const m = await this.find(migrationId);
    const latest = await migrations.latestForTenant(database.db, m.tenantId);
    if (m.status !== 'completed_with_errors' || latest?.id !== m.id) {
      throw errors.conflict(
        `Only the latest migration of a tenant, ended completed_with_errors, can be retried (this one is ${m.status})`,
      );
    }
    const now = clock.now();
    try {
      await database.db.transaction().execute(async (trx) => {
        const changes: StorageMigrationChanges = {
          status: 'in_progress',
          phase: 'copy',
          completedAt: null,
          purgeAt: null,
          failedFiles: 0,
        };
        if (!(await migrations.transition(trx, m.id, ['completed_with_errors'], changes, now)))
          throw errors.conflict('The migration changed meanwhile; try again');
        const requeued = await files.requeueFailed(trx, m.tenantId, m.id, now);
        await jobs.enqueue(trx, STORAGE_JOBS.migrate, { migrationId: m.id }, { tenantId: m.tenantId });
        await migrations.audit(trx, {
          tenantId: m.tenantId,
          migrationId: m.id,
          action: 'migration_retried',
          detail: { files: requeued },
          at: now,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw errors.conflict('Another storage migration of this tenant is pending or in progress');
      throw error;
    }
    return this.find(m.id);
  }

  /** Stops at once: copied files stay in the target, new uploads go back to the source. */
  async cancel(migrationId: string, reason: string | null): Promise<StorageMigration> {
    const { database, clock, migrations, tenantStorage } = this.#deps;
    const m = await this.find(migrationId);
    const now = clock.now();
    await database.db.transaction().execute(async (trx) => {
      const changes: StorageMigrationChanges = {
        status: 'cancelled',
        cancelledAt: now,
        completedAt: now,
        cancelReason: reason,
        currentFile: null,
      };
      if (!(await migrations.transition(trx, m.id, RUNNING_STATES, changes, now))) {
        throw errors.conflict(`The migration is ${m.status}; only a pending or in-progress migration can be cancelled`);
      }
      const placement = await tenantStorage.find(trx, m.tenantId);
      if (placement) {
        // Documents stored during the copy (no provider recorded yet) were written to the target.
        await this.#deps.documents.setProvider(trx, m.tenantId, m.targetProvider, 'unset');
        const source = m.sourceProvider;
        await tenantStorage.save(trx, m.tenantId, cancelTo(placement, source, m.targetProvider), now);
      }
      await migrations.audit(trx, {
        tenantId: m.tenantId,
        migrationId: m.id,
        action: 'migration_cancelled',
        detail: { reason },
        at: now,
      });
    });
    return this.find(m.id);
  }

  private async find(migrationId: string): Promise<StorageMigration> {
    const row = await this.#deps.migrations.findById(this.#deps.database.db, migrationId);
    if (!row) throw errors.notFound('storage_migration', migrationId);
    return row;
  }

  private async assertTargetConfigured(tenantId: string, target: ProviderName): Promise<void> {
    if (target === 'dedicated' && !this.#deps.stores.dedicatedConfigured) {
      throw errors.field(
        'target_provider',
        'no dedicated storage is configured on this deployment (DEDICATED_STORAGE_URL)',
      );
    }
    if (target === 'customer') {
      const view = await this.#deps.storageConfig.view(tenantId);
      if (!view.customer)
        throw errors.field(
          'target_provider',
          'set the customer storage first with PUT /api/v1/admin/storage/config/{tenant_id}',
        );
    }
  }
}
