import type { Kysely } from 'kysely';

/*
 * Issue 32 item 2, `GET /audit` with combined filters (docs/audit.md, docs/benchmarks.md):
 * - `actor` + `action`: one range of `(tenant_id, actor_id, action, at, id)` newest first, instead of
 *   reading all of an actor's records and filtering the action;
 * - `document_id` (+ `from`/`to`): the document filter also names `target_type = 'document'`; with
 *   the type in the index the page and the capped count are index ranges (index-only for the count),
 *   not heap reads. It replaces `audit_records_tenant_target_at` (same leading columns).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('audit_records_tenant_actor_action_at')
    .on('audit_records')
    .columns(['tenant_id', 'actor_id', 'action', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_records_tenant_target_type_at')
    .on('audit_records')
    .columns(['tenant_id', 'target_id', 'target_type', 'at', 'id'])
    .execute();
  await db.schema.dropIndex('audit_records_tenant_target_at').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('audit_records_tenant_target_at')
    .on('audit_records')
    .columns(['tenant_id', 'target_id', 'at', 'id'])
    .execute();
  await db.schema.dropIndex('audit_records_tenant_target_type_at').ifExists().execute();
  await db.schema.dropIndex('audit_records_tenant_actor_action_at').ifExists().execute();
}
