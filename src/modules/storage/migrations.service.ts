import { isUniqueViolation } from '../../db/db-errors.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { markUnsetDocuments } from './document-locations.ts';
import type { MigrationFileRow } from './migration-files.repository.ts';
import type { MigrationRow } from './migrations.repository.ts';
import { RUNNING_STATES } from './migrations.repository.ts';
import { cancelTo } from './placement-moves.ts';
import { STORAGE_JOBS, type StorageDeps } from './runner-deps.ts';
import type { StorageConfigService } from './storage-config.service.ts';
import { isSupportedPath, type ProviderName, supportedTargetsFrom } from './storage-providers.ts';
import { SHARED_ONLY } from './tenant-storage.repository.ts';

/** The administrator's storage migrations (spec "Storage migration", contract §11). */
export class MigrationsService {
  readonly #deps: StorageDeps & { storageConfig: StorageConfigService };

  constructor(deps: StorageDeps & { storageConfig: StorageConfigService }) {
    this.#deps = deps;
  }

  /** Creates the `pending` record with its totals and enqueues the run. */
  async start(tenantId: string, input: { targetProvider: ProviderName; initiatedByEmail: string | null }): Promise<MigrationRow> {
    const { database, clock, jobs, migrations, files, tenantStorage } = this.#deps;
    await this.#deps.storageConfig.assertTenant(tenantId);
    const db = database.db;
    const source = ((await tenantStorage.find(db, tenantId)) ?? SHARED_ONLY).current;
    const target = input.targetProvider;
    if (target === source) throw errors.conflict(`The tenant's files are already in ${source} storage`);
    if (await migrations.running(db, tenantId)) throw errors.conflict('A storage migration of this tenant is already pending or in progress');
    if (!isSupportedPath(source, target)) {
      const allowed = supportedTargetsFrom(source);
      throw errors.field('target_provider', `migrating from ${source} to ${target} is not supported; from ${source} the targets are: ${allowed.join(', ') || 'none'}`);
    }
    await this.assertTargetConfigured(tenantId, target);
    const now = clock.now();
    const totals = await files.totals(db, tenantId);
    const row: MigrationRow = {
      id: newId(now),
      tenant_id: tenantId,
      source_provider: source,
      target_provider: target,
      status: 'pending',
      phase: 'preparation',
      total_files: totals.files,
      migrated_files: 0,
      failed_files: 0,
      skipped_files: 0,
      total_bytes: totals.bytes,
      migrated_bytes: 0,
      current_file: null,
      initiated_by_email: input.initiatedByEmail ?? this.#deps.config.notifyEmail,
      cancel_reason: null,
      error: null,
      created_at: now,
      started_at: null,
      completed_at: null,
      cancelled_at: null,
      purge_at: null,
      purged_at: null,
      updated_at: now,
    };
    try {
      await db.transaction().execute(async (trx) => {
        await migrations.insert(trx, row);
        await jobs.enqueue(trx, STORAGE_JOBS.migrate, { migrationId: row.id }, { tenantId });
        await migrations.audit(trx, { tenantId, migrationId: row.id, action: 'migration_requested', detail: { source, target, initiated_by_email: row.initiated_by_email }, at: now });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict('A storage migration of this tenant is already pending or in progress');
      throw error;
    }
    return row;
  }

  /** The tenant's latest migration (the status view); 404 when it never migrated. */
  async current(tenantId: string): Promise<MigrationRow> {
    await this.#deps.storageConfig.assertTenant(tenantId);
    const row = await this.#deps.migrations.latestForTenant(this.#deps.database.db, tenantId);
    if (!row) throw errors.notFound('storage_migration');
    return row;
  }

  async history(tenantId: string): Promise<MigrationRow[]> {
    await this.#deps.storageConfig.assertTenant(tenantId);
    return this.#deps.migrations.listForTenant(this.#deps.database.db, tenantId);
  }

  async failedFiles(migrationId: string): Promise<MigrationFileRow[]> {
    const m = await this.find(migrationId);
    return this.#deps.files.failed(this.#deps.database.db, m.tenant_id, m.id);
  }

  /** Re-runs exactly the files that failed, on the latest migration of its tenant. */
  async retry(migrationId: string): Promise<MigrationRow> {
    const { database, clock, migrations, files, jobs } = this.#deps;
    const m = await this.find(migrationId);
    const latest = await migrations.latestForTenant(database.db, m.tenant_id);
    if (m.status !== 'completed_with_errors' || latest?.id !== m.id) {
      throw errors.conflict(`Only the latest migration of a tenant, ended completed_with_errors, can be retried (this one is ${m.status})`);
    }
    const now = clock.now();
    try {
      await database.db.transaction().execute(async (trx) => {
        const changes = { status: 'in_progress', phase: 'copy', completed_at: null, purge_at: null, failed_files: 0 };
        if (!(await migrations.transition(trx, m.id, ['completed_with_errors'], changes, now))) throw errors.conflict('The migration changed meanwhile; try again');
        const requeued = await files.requeueFailed(trx, m.tenant_id, m.id, now);
        await jobs.enqueue(trx, STORAGE_JOBS.migrate, { migrationId: m.id }, { tenantId: m.tenant_id });
        await migrations.audit(trx, { tenantId: m.tenant_id, migrationId: m.id, action: 'migration_retried', detail: { files: requeued }, at: now });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict('Another storage migration of this tenant is pending or in progress');
      throw error;
    }
    return this.find(m.id);
  }

  /** Stops at once: copied files stay in the target, new uploads go back to the source. */
  async cancel(migrationId: string, reason: string | null): Promise<MigrationRow> {
    const { database, clock, migrations, tenantStorage } = this.#deps;
    const m = await this.find(migrationId);
    const now = clock.now();
    await database.db.transaction().execute(async (trx) => {
      const changes = { status: 'cancelled', cancelled_at: now, completed_at: now, cancel_reason: reason, current_file: null };
      if (!(await migrations.transition(trx, m.id, RUNNING_STATES, changes, now))) {
        throw errors.conflict(`The migration is ${m.status}; only a pending or in-progress migration can be cancelled`);
      }
      const placement = await tenantStorage.find(trx, m.tenant_id);
      if (placement) {
        // Documents stored during the copy (no provider recorded yet) were written to the target.
        await markUnsetDocuments(trx, m.tenant_id, m.target_provider);
        const source = m.source_provider as ProviderName;
        await tenantStorage.save(trx, m.tenant_id, cancelTo(placement, source, m.target_provider as ProviderName), now);
      }
      await migrations.audit(trx, { tenantId: m.tenant_id, migrationId: m.id, action: 'migration_cancelled', detail: { reason }, at: now });
    });
    return this.find(m.id);
  }

  private async find(migrationId: string): Promise<MigrationRow> {
    const row = await this.#deps.migrations.findById(this.#deps.database.db, migrationId);
    if (!row) throw errors.notFound('storage_migration', migrationId);
    return row;
  }

  private async assertTargetConfigured(tenantId: string, target: ProviderName): Promise<void> {
    if (target === 'dedicated' && !this.#deps.stores.dedicatedConfigured) {
      throw errors.field('target_provider', 'no dedicated storage is configured on this deployment (DEDICATED_STORAGE_URL)');
    }
    if (target === 'customer') {
      const view = await this.#deps.storageConfig.view(tenantId);
      if (!view.customer) throw errors.field('target_provider', 'set the customer storage first with PUT /api/v1/admin/storage/config/{tenant_id}');
    }
  }
}
