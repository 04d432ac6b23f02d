import { type Kysely, sql } from 'kysely';

// Identity and access (issue 3): sessions, refresh tokens, signing keys, server secrets,
// password resets, the mail outbox, idempotency records, CORS origins and API-key rotation.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  // JWT signing keys (HS256), shared by every API process; `id` is the JWT `kid`.
  await db.schema
    .createTable('signing_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .execute();
  await db.schema.createIndex('signing_keys_created_idx').on('signing_keys').column('created_at').execute();

  await db.schema
    .createTable('auth_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revoked_reason', 'text')
    .execute();
  await db.schema
    .createIndex('auth_sessions_user_idx')
    .on('auth_sessions')
    .columns(['tenant_id', 'user_id', 'created_at'])
    .execute();

  // Refresh tokens of a session (the "family"): each is spent once; a spent one presented again revokes the session.
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull().references('auth_sessions.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('spent_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('refresh_tokens_session_idx')
    .on('refresh_tokens')
    .columns(['tenant_id', 'session_id'])
    .execute();

  await db.schema
    .createTable('password_reset_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('password_reset_tokens_user_idx')
    .on('password_reset_tokens')
    .columns(['tenant_id', 'user_id'])
    .execute();

  // Mail waiting for a mailer: password resets, invitations, workflow notifications.
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('mail_outbox_pending_idx')
    .on('mail_outbox')
    .column('created_at')
    .where(sql.ref('sent_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('mail_outbox_tenant_idx')
    .on('mail_outbox')
    .columns(['tenant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('principal', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();

  // One row per configured origin, so a credential-less preflight can be answered by an index lookup.
  await db.schema
    .createTable('tenant_cors_origins')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('tenant_cors_origins_pk', ['origin', 'tenant_id'])
    .execute();
  await db.schema.createIndex('tenant_cors_origins_tenant_idx').on('tenant_cors_origins').column('tenant_id').execute();

  // Rotation keeps the key's id; the previous secret works until previous_expires_at.
  await db.schema.alterTable('api_keys').addColumn('previous_prefix', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_key_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_expires_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_previous_prefix_idx').on('api_keys').column('previous_prefix').execute();

  await db.schema.alterTable('workspaces').addColumn('created_by', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('name_key', 'text').execute();
  await db.schema
    .createIndex('workspaces_tenant_name_idx')
    .on('workspaces')
    .columns(['tenant_id', 'name_key'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('workspaces_tenant_name_idx').ifExists().execute();
  await db.schema.alterTable('workspaces').dropColumn('name_key').execute();
  await db.schema.alterTable('workspaces').dropColumn('created_by').execute();
  await db.schema.dropIndex('api_keys_previous_prefix_idx').ifExists().execute();
  for (const column of ['previous_expires_at', 'previous_key_hash', 'previous_prefix']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
  for (const table of [
    'tenant_cors_origins',
    'idempotency_keys',
    'mail_outbox',
    'password_reset_tokens',
    'refresh_tokens',
    'auth_sessions',
    'signing_keys',
    'server_secrets',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
