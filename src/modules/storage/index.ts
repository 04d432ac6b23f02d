import { defineModule } from '../../platform/module.ts';
import { TenantRoutingBlobStore } from '../../providers/blobs/tenant-routing-blob-store.ts';
import { outboundHttpFromConfig } from '../../providers/outbound/outbound-from-config.ts';
import { CredentialsBox } from './credentials-box.ts';
import { CustomerTargetsRepository } from './customer-targets.repository.ts';
import { MigrationFilesRepository } from './migration-files.repository.ts';
import { MigrationsRepository } from './migrations.repository.ts';
import { MigrationsService } from './migrations.service.ts';
import { placementResolver } from './placement.ts';
import { ProviderStores } from './provider-stores.ts';
import type { StorageDeps } from './runner-deps.ts';
import { storageJobs } from './storage.jobs.ts';
import { storageRoutes } from './storage.routes.ts';
import { StorageConfigService } from './storage-config.service.ts';
import { TenantStorageRepository } from './tenant-storage.repository.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    storageMigrations: MigrationsService;
    /** The stores behind each tenant's providers (tests, benchmarks, tooling). */
    storageProviders: ProviderStores;
  }
}

/**
 * Per-tenant storage (docs/storage.md): shared, dedicated and customer-owned stores, and online
 * migrations between them as durable jobs. It installs the routing of the platform's blob store,
 * so documents, processing and search keep using `blobs` unchanged.
 */
export const storageModule = defineModule({
  name: 'storage',
  setup({ config, database, clock, logger, blobs, jobs, use }) {
    const http = outboundHttpFromConfig(config);
    const customerTargets = new CustomerTargetsRepository();
    const tenantStorage = new TenantStorageRepository();
    const migrations = new MigrationsRepository();
    const credentials = new CredentialsBox(config.storage.encryptionKeys, database.db, () => clock.now());
    const shared = blobs instanceof TenantRoutingBlobStore ? blobs.shared : blobs;
    const stores = new ProviderStores({ config, database, shared, customerTargets, credentials, agents: http.agents });
    if (blobs instanceof TenantRoutingBlobStore) blobs.route(placementResolver({ database, tenantStorage, stores }));

    const deps: StorageDeps = {
      config: config.storage,
      database,
      clock,
      logger,
      jobs,
      migrations,
      files: new MigrationFilesRepository(),
      tenantStorage,
      stores,
      mail: use('mail'),
      documents: use('documentFiles'),
      holds: use('legalHoldGuard'),
    };
    const storageConfig = new StorageConfigService({
      database,
      clock,
      tenants: use('tenantDirectory'),
      stores,
      tenantStorage,
      customerTargets,
      migrations,
      credentials,
    });
    const service = new MigrationsService({ ...deps, storageConfig, storageUsage: use('storageUsage') });
    return {
      provides: { storageMigrations: service, storageProviders: stores },
      routes(app) {
        storageRoutes(app, { config: storageConfig, migrations: service, clock });
      },
      jobs: storageJobs(deps),
      async sandboxCleanup(trx, tenantId) {
        await migrations.deleteForTenant(trx, tenantId);
      },
      async close() {
        await stores.close();
        await http.close();
      },
    };
  },
});
