import type { Kysely } from 'kysely';

/*
 * Issue 33, saved views of the console's documents page (docs/console.md "Saved views"), owned by
 * the views module: one row per view, private to its owner (a user, or an API key: `owner_id` is
 * `user:<id>` or `key:<id>`) within a tenant. `name_key` (the name's comparison form) is unique per
 * owner, so one person cannot have two views that read alike; other people may use the same name.
 * `filters` is the view's address query as JSON text (same type on both dialects).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saved_views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('folder_id', 'text')
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('saved_views_owner_name_idx')
    .on('saved_views')
    .columns(['tenant_id', 'owner_id', 'name_key'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saved_views').execute();
}
