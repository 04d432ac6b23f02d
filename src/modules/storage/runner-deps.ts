import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { MigrationFilesRepository } from './migration-files.repository.ts';
import type { MigrationsRepository } from './migrations.repository.ts';
import type { ProviderStores } from './provider-stores.ts';
import type { TenantStorageRepository } from './tenant-storage.repository.ts';

/** Job kinds of the storage module. */
export const STORAGE_JOBS = {
  /** One step of a migration run; each step enqueues the next in the transaction that ends it. */
  migrate: 'storage.migrate',
  /** Deletes the source copies once the retention period has passed. */
  purgeSource: 'storage.purge_source',
} as const;

export interface MigrationJobPayload {
  migrationId: string;
}

/** What the migration run and the services share. */
export interface StorageDeps {
  config: Config['storage'];
  database: Database;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  migrations: MigrationsRepository;
  files: MigrationFilesRepository;
  tenantStorage: TenantStorageRepository;
  stores: ProviderStores;
  mail: Pick<ModuleServices['mail'], 'enqueue'>;
  /** The documents module's stored files: whether a document still exists, which provider holds its bytes. */
  documents: ModuleServices['documentFiles'];
  /** Documents a legal hold covers keep their source copies (docs/records.md). */
  holds: Pick<ModuleServices['legalHoldGuard'], 'heldDocuments'>;
}
