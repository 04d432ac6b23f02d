import { type Kysely, sql } from 'kysely';

// Per-tenant storage providers and the migrations between them (docs/storage.md). Every index
// starts with tenant_id. At most one migration per tenant is `pending` or `in_progress` (partial
// unique index), so two concurrent starts cannot both win.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenant_storage')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    /** The tenant's provider: `shared`, `dedicated` or `customer`. */
    .addColumn('current_provider', 'text', (c) => c.notNull())
    /** Where new bytes go (the target while a migration copies). */
    .addColumn('write_provider', 'text', (c) => c.notNull())
    /** JSON string[]: providers looked in, in order, until one has the key. */
    .addColumn('read_providers', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('storage_customer_targets')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('endpoint', 'text')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('access_key_id', 'text', (c) => c.notNull())
    /** The secret access key, sealed with AES-256-GCM under the key named by key_id. */
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('force_path_style', 'integer', (c) => c.notNull())
    .addColumn('verified_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('storage_migrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('source_provider', 'text', (c) => c.notNull())
    .addColumn('target_provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    /** `preparation`, `copy`, `cutover`, `completion`, `done`. */
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('total_files', 'integer', (c) => c.notNull())
    .addColumn('migrated_files', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_files', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped_files', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_bytes', 'bigint', (c) => c.notNull())
    .addColumn('migrated_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('current_file', 'text')
    .addColumn('initiated_by_email', 'text')
    .addColumn('cancel_reason', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    /** When the source copies may be deleted; null until the migration completed. */
    .addColumn('purge_at', 'bigint')
    .addColumn('purged_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('storage_migrations_tenant_idx')
    .on('storage_migrations')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();
  await sql`create unique index storage_migrations_running_idx on storage_migrations (tenant_id) where status in ('pending', 'in_progress')`.execute(
    db,
  );

  await db.schema
    .createTable('storage_migration_files')
    .addColumn('migration_id', 'text', (c) => c.notNull().references('storage_migrations.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('thumbnail_key', 'text')
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    /** `pending`, `copied`, `failed` (retries spent), `skipped` (document deleted meanwhile). */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('storage_migration_files_pk', ['migration_id', 'document_id'])
    .execute();
  await db.schema
    .createIndex('storage_migration_files_due_idx')
    .on('storage_migration_files')
    .columns(['tenant_id', 'migration_id', 'status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('storage_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('migration_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    /** JSON object. */
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('storage_audit_tenant_idx')
    .on('storage_audit')
    .columns(['tenant_id', 'created_at'])
    .execute();

  // Which provider holds the document's bytes; null: the tenant's write provider.
  await db.schema.alterTable('documents').addColumn('storage_provider', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('storage_provider').execute();
  await db.schema.dropTable('storage_audit').execute();
  await db.schema.dropTable('storage_migration_files').execute();
  await db.schema.dropTable('storage_migrations').execute();
  await db.schema.dropTable('storage_customer_targets').execute();
  await db.schema.dropTable('tenant_storage').execute();
}
