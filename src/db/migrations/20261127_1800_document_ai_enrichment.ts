import type { Kysely } from 'kysely';

// AI enrichment beyond the spec's summary, tags and entity lists (docs/api-decisions.md §6,
// docs/processing.md): the document's type, and the confidences, key fields, tag details and
// typed entities behind them (JSON). Documents processed before have null in both.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('ai_document_type', 'text').execute();
  await db.schema.alterTable('documents').addColumn('ai_enrichment', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('ai_enrichment').execute();
  await db.schema.alterTable('documents').dropColumn('ai_document_type').execute();
}
