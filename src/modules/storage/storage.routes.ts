import { ErrorBody, standardErrors } from '../../http/common-schemas.ts';
import type { App } from '../../http/fastify-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { MigrationsService } from './migrations.service.ts';
import { presentConfig, presentFailed, presentMigration, presentStatus } from './storage.presenter.ts';
import {
  CancelBody,
  CustomerTargetBody,
  FailedFiles,
  MigrateBody,
  MigrationHistory,
  MigrationIdParams,
  MigrationRecord,
  MigrationStatusView,
  StorageConfigView,
  TenantIdParams,
} from './storage.schemas.ts';
import type { StorageConfigService } from './storage-config.service.ts';

const errorsWithConflict = { ...standardErrors, 409: ErrorBody };

/** Spec "Storage migration (administrator only)" and contract §11; administrator key only, not rate limited. */
export function storageRoutes(
  app: App,
  s: { config: StorageConfigService; migrations: MigrationsService; clock: Clock },
): void {
  const common = { config: { auth: 'admin' as const, rateLimit: false as const } };
  const tags = ['admin-storage'];

  app.get(
    '/admin/storage/config/:tenant_id',
    {
      ...common,
      schema: {
        tags,
        summary: "A tenant's storage provider and configured targets",
        description: 'Secrets are masked. 404 for an unknown tenant.',
        params: TenantIdParams,
        response: { 200: StorageConfigView, ...standardErrors },
      },
    },
    async (request) => presentConfig(await s.config.view(request.params.tenant_id)),
  );

  app.put(
    '/admin/storage/config/:tenant_id',
    {
      ...common,
      schema: {
        tags,
        summary: "Set the tenant's customer-owned (S3-compatible) storage",
        description:
          "Accepted only after a probe object was written, read back and deleted; otherwise 400 `validation_error` naming the field at fault, and nothing is stored. The secret is encrypted at rest and never shown again. 409 `conflict` while the customer storage holds or receives the tenant's files.",
        params: TenantIdParams,
        body: CustomerTargetBody,
        response: { 200: StorageConfigView, ...errorsWithConflict },
      },
    },
    async (request) => {
      const b = request.body;
      const view = await s.config.setCustomer(request.params.tenant_id, {
        endpoint: b.endpoint ?? null,
        bucket: b.bucket,
        region: b.region ?? 'us-east-1',
        prefix: (b.prefix ?? '').replace(/^\/+|\/+$/g, ''),
        accessKeyId: b.access_key_id,
        secretAccessKey: b.secret_access_key,
        forcePathStyle: b.force_path_style ?? false,
      });
      return presentConfig(view);
    },
  );

  app.post(
    '/admin/storage/config/:tenant_id/migrate',
    {
      ...common,
      schema: {
        tags,
        summary: "Start moving a tenant's files to another provider",
        description:
          '202 with the `pending` record and its totals; the run proceeds as background jobs. 409 `conflict` when the target is the current provider or a migration is pending or in progress; 400 `validation_error` for a path the spec does not list or a target not configured.',
        params: TenantIdParams,
        body: MigrateBody,
        response: { 202: MigrationRecord, ...errorsWithConflict },
      },
    },
    async (request, reply) => {
      const migration = await s.migrations.start(request.params.tenant_id, {
        targetProvider: request.body.target_provider,
        initiatedByEmail: request.body.initiated_by_email ?? null,
      });
      return reply.status(202).send(presentMigration(migration));
    },
  );

  app.get(
    '/admin/storage/migrations/:tenant_id',
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's current (latest) migration, with progress",
        description: '404 when the tenant never migrated.',
        params: TenantIdParams,
        response: { 200: MigrationStatusView, ...standardErrors },
      },
    },
    async (request) => presentStatus(await s.migrations.current(request.params.tenant_id), s.clock.now()),
  );

  app.get(
    '/admin/storage/migrations/:tenant_id/history',
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's migrations, newest first",
        description: 'Every storage migration the tenant had, with its counts and outcome, and how many there are.',
        params: TenantIdParams,
        response: { 200: MigrationHistory, ...standardErrors },
      },
    },
    async (request) => {
      const migrations = await s.migrations.history(request.params.tenant_id);
      return { migrations: migrations.map(presentMigration), count: migrations.length };
    },
  );

  app.get(
    '/admin/storage/migrations/:migration_id/failed',
    {
      ...common,
      schema: {
        tags,
        summary: 'Files whose copy failed after every automatic retry',
        description: 'They are still served from the source.',
        params: MigrationIdParams,
        response: { 200: FailedFiles, ...standardErrors },
      },
    },
    async (request) => {
      const files = await s.migrations.failedFiles(request.params.migration_id);
      return { failed_files: files.map(presentFailed), total_failed: files.length };
    },
  );

  app.post(
    '/admin/storage/migrations/:migration_id/retry',
    {
      ...common,
      schema: {
        tags,
        summary: 'Copy the failed files again',
        description:
          'Only the latest migration of a tenant, ended `completed_with_errors` (else 409 `conflict`). Answers the record, `in_progress`.',
        params: MigrationIdParams,
        response: { 200: MigrationRecord, ...errorsWithConflict },
      },
    },
    async (request) => presentMigration(await s.migrations.retry(request.params.migration_id)),
  );

  app.post(
    '/admin/storage/migrations/:migration_id/cancel',
    {
      ...common,
      schema: {
        tags,
        summary: 'Cancel a pending or in-progress migration',
        description:
          'Stops at once; copied files stay in the target; new uploads go back to the source; a new migration can be started later. 409 `conflict` when it already ended. Answers the record, `cancelled`.',
        params: MigrationIdParams,
        body: CancelBody,
        response: { 200: MigrationRecord, ...errorsWithConflict },
      },
    },
    async (request) =>
      presentMigration(await s.migrations.cancel(request.params.migration_id, request.body?.reason ?? null)),
  );
}
