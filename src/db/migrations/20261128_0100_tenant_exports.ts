import type { Kysely } from 'kysely';

/*
 * Issue 35 items 2-4: tenant exports (an archive per request, made by a job, downloadable until it
 * expires). src/modules/transfer/tenant-archive/, docs/tenant-export.md.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenant_exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('entries_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('entries_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes_total', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes_done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('blob_key', 'text')
    .addColumn('size', 'bigint')
    .addColumn('sha256', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('tenant_exports_tenant_idx')
    .on('tenant_exports')
    .columns(['tenant_id', 'created_at'])
    .execute();
  await db.schema.createIndex('tenant_exports_expiry_idx').on('tenant_exports').columns(['expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tenant_exports').ifExists().execute();
}
