import { type Kysely, PostgresAdapter } from 'kysely';

/*
 * Snapshots of each tenant's in-memory keyword index (docs/search.md, "Cold start"): a process that
 * has built or refreshed a tenant's index writes it as bytes, in parts; another process (or the same
 * after a restart) loads it by copying arrays and applies only the changes logged since its version,
 * instead of reading and tokenising every text of the tenant.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('search_snapshots')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_snapshots_pk', ['tenant_id', 'kind', 'part'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('search_snapshots').ifExists().execute();
}
