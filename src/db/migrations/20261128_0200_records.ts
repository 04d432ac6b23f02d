import type { Kysely } from 'kysely';

/*
 * Issue 32 item 3, retention rules and legal holds (docs/records.md), owned by the records module:
 * - retention_rules: per folder (and everything below it), how long documents are kept and what
 *   happens after (delete, or a review task); the progress of the rule's last run;
 * - retention_reviews: the review tasks a rule asked for, one per rule and document, so a daily
 *   run asks once;
 * - legal_holds: a named hold, active until released (the record stays, marked released);
 * - legal_hold_items: the documents and folders a hold names. Coverage is resolved when a deletion
 *   is checked (a folder covers everything below it, also what is added later), so no snapshot of
 *   documents is taken. No foreign keys to documents or folders: what a hold names cannot be
 *   deleted while it is active, and a released hold keeps naming what it named.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('retention_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('folder_id', 'text', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addColumn('keep_days', 'integer', (c) => c.notNull())
    .addColumn('basis', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('run_status', 'text', (c) => c.notNull().defaultTo('idle'))
    .addColumn('run_started_at', 'bigint')
    .addColumn('run_finished_at', 'bigint')
    .addColumn('run_examined', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_review_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_held', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_error', 'text')
    .execute();
  await db.schema
    .createIndex('retention_rules_tenant_idx')
    .on('retention_rules')
    .columns(['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('retention_rules_folder_idx').on('retention_rules').columns(['folder_id']).execute();

  await db.schema
    .createTable('retention_reviews')
    .addColumn('rule_id', 'text', (c) => c.notNull().references('retention_rules.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('retention_reviews_pk', ['rule_id', 'document_id'])
    .execute();
  await db.schema
    .createIndex('retention_reviews_tenant_idx')
    .on('retention_reviews')
    .columns(['tenant_id', 'task_id'])
    .execute();
  await db.schema
    .createIndex('retention_reviews_document_idx')
    .on('retention_reviews')
    .columns(['document_id'])
    .execute();

  await db.schema
    .createTable('legal_holds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('released_by', 'text')
    .addColumn('released_at', 'bigint')
    .execute();
  await db.schema.createIndex('legal_holds_tenant_idx').on('legal_holds').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('legal_hold_items')
    .addColumn('hold_id', 'text', (c) => c.notNull().references('legal_holds.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('legal_hold_items_pk', ['hold_id', 'target_type', 'target_id'])
    .execute();
  // The guard's lookup: does an active hold name any of these documents or folders?
  await db.schema
    .createIndex('legal_hold_items_target_idx')
    .on('legal_hold_items')
    .columns(['tenant_id', 'target_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('legal_hold_items').ifExists().execute();
  await db.schema.dropTable('legal_holds').ifExists().execute();
  await db.schema.dropTable('retention_reviews').ifExists().execute();
  await db.schema.dropTable('retention_rules').ifExists().execute();
}
