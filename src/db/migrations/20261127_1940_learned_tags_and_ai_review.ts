import type { Kysely } from 'kysely';

/*
 * Issue 27, learned tags and the AI review queue (docs/processing.md):
 * - learned_tag_terms: each document's terms for the learned-tag classifier (goes with the document);
 * - learned_tag_models: one small model per tenant and when its tagging last changed;
 * - document_ai_reviews: per document, the AI results a person confirmed, corrected or rejected
 *   (kept apart from the AI's, so a reprocess never overwrites them) and its pending review task;
 * - tenants.settings: tenant settings (JSON), the first being `ai_review_threshold`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('learned_tag_terms')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Training reads a tenant's most recently enriched documents as the examples without a tag.
  await db.schema
    .createIndex('learned_tag_terms_tenant_idx')
    .on('learned_tag_terms')
    .columns(['tenant_id', 'updated_at'])
    .execute();
  await db.schema
    .createTable('learned_tag_models')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('model', 'text')
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addColumn('trained_from', 'bigint')
    .addColumn('trained_at', 'bigint')
    .execute();
  await db.schema
    .createTable('document_ai_reviews')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('confirmed', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('document_ai_reviews_tenant_idx')
    .on('document_ai_reviews')
    .columns(['tenant_id', 'document_id'])
    .execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').dropColumn('settings').execute();
  await db.schema.dropTable('document_ai_reviews').ifExists().execute();
  await db.schema.dropTable('learned_tag_models').ifExists().execute();
  await db.schema.dropTable('learned_tag_terms').ifExists().execute();
}
