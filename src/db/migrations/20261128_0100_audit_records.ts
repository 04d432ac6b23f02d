import type { Kysely } from 'kysely';

/*
 * Issue 32 item 2: the audit trail (src/modules/audit, docs/audit.md). `audit_records` is append
 * only: no statement of the service updates a row, and rows are deleted only by the retention
 * purge, after their tenant was deleted (`audit_tenant_deletions`) for AUDIT_RETENTION_DAYS.
 *
 * No foreign key to `tenants`: the records must outlive their tenant for the retention period.
 * Every lookup index starts with `tenant_id` and ends with `at, id` (the listing's order), so
 * each filter of `GET /audit` (none, actor, document, action) is one index range read newest first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'text')
    .execute();
  await db.schema
    .createIndex('audit_records_tenant_at')
    .on('audit_records')
    .columns(['tenant_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_records_tenant_actor_at')
    .on('audit_records')
    .columns(['tenant_id', 'actor_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_records_tenant_target_at')
    .on('audit_records')
    .columns(['tenant_id', 'target_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_records_tenant_action_at')
    .on('audit_records')
    .columns(['tenant_id', 'action', 'at', 'id'])
    .execute();

  await db.schema
    .createTable('audit_tenant_deletions')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('deleted_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_tenant_deletions').ifExists().execute();
  await db.schema.dropTable('audit_records').ifExists().execute();
}
