import type { Kysely } from 'kysely';

/*
 * Issue 35: a tenant import is recorded before it stores a single file, with every blob key it is
 * about to write, so that one killed mid-import (kill -9, power loss) leaves nothing behind: the
 * recurring sweep deletes the blobs of an import whose heartbeat stopped before it committed.
 * src/modules/transfer/tenant-archive/import-journal.ts, docs/tenant-export.md ("Interruption").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenant_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // No foreign key: the tenant exists only once the import commits.
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('subdomain', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('staging_dir', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('tenant_imports_running_idx')
    .on('tenant_imports')
    .columns(['status', 'heartbeat_at'])
    .execute();
  await db.schema
    .createTable('tenant_import_blobs')
    .addColumn('import_id', 'text', (c) => c.notNull().references('tenant_imports.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tenant_import_blobs_pk', ['import_id', 'key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tenant_import_blobs').ifExists().execute();
  await db.schema.dropTable('tenant_imports').ifExists().execute();
}
