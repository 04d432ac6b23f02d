import { type Kysely, sql } from 'kysely';

/*
 * Idempotency records are kept per scope instead of per tenant: a tenant id, or `admin` for the
 * administrator's endpoints (spec: every mutating request accepts an Idempotency-Key). The scope
 * is not a foreign key, so the old table is replaced (SQLite cannot drop a foreign key in place).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_records')
    .addColumn('scope', 'text', (c) => c.notNull())
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
    .addPrimaryKeyConstraint('idempotency_records_pk', ['scope', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_records_expires_idx')
    .on('idempotency_records')
    .column('expires_at')
    .execute();
  await sql`insert into idempotency_records (scope, key, principal, method, path, fingerprint, state, status_code, headers, body, locked_until, created_at, expires_at)
    select tenant_id, key, principal, method, path, fingerprint, state, status_code, headers, body, locked_until, created_at, expires_at
    from idempotency_keys`.execute(db);
  await db.schema.dropTable('idempotency_keys').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_records').execute();
}
