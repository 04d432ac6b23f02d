import type { Kysely } from 'kysely';

// When a sandbox twin's data was last cleared (docs/api-decisions.md §5: every 7 days); null = never, count from creation.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').addColumn('sandbox_cleared_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').dropColumn('sandbox_cleared_at').execute();
}
