import { type Kysely, sql } from 'kysely';

// Types are portable: SQLite maps bigint/integer/text by affinity, PostgreSQL takes them as written.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subdomain', 'text', (c) => c.notNull().unique())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('cors_origins', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('sandbox_of', 'text', (c) => c.references('tenants.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tenants_sandbox_of_idx').on('tenants').column('sandbox_of').execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('roles', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('users_tenant_email_key', ['tenant_id', 'email_key'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_prefix_idx').on('api_keys').column('prefix').execute();
  await db.schema.createIndex('api_keys_tenant_idx').on('api_keys').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workspaces_tenant_idx').on('workspaces').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('workspace_members')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('workspace_members_user_idx')
    .on('workspace_members')
    .columns(['tenant_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_tenant_idx').on('events').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('unique_key', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  // Serves the claim query: only claimable rows are indexed, in the order they are taken.
  await db.schema
    .createIndex('jobs_claim_idx')
    .on('jobs')
    .columns(['kind', 'priority', 'run_at'])
    .where(sql.ref('state'), '=', 'available')
    .execute();
  await db.schema
    .createIndex('jobs_lease_idx')
    .on('jobs')
    .column('locked_until')
    .where(sql.ref('state'), '=', 'running')
    .execute();
  // A unique key blocks duplicates only while a job with it is still pending or running.
  await db.schema
    .createIndex('jobs_unique_key_idx')
    .on('jobs')
    .column('unique_key')
    .unique()
    .where(sql<boolean>`unique_key is not null and state in ('available', 'running')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['jobs', 'events', 'workspace_members', 'workspaces', 'api_keys', 'users', 'tenants']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
