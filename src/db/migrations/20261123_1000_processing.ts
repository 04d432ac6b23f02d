import { type Kysely, PostgresAdapter } from 'kysely';

/*
 * The processing pipeline's storage: the text of each page next to the whole text (so content can
 * be read page by page), and the passages of each document with their embedding, the model that
 * made it and its dimension (a model change re-embeds instead of mixing vector spaces).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const blob = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema.alterTable('document_contents').addColumn('page_texts', 'text').execute();
  await db.schema
    .createTable('document_chunks')
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('chunk_index', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('page', 'integer')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('embedding', blob)
    .addColumn('embedding_model', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_chunks_pk', ['document_id', 'chunk_index'])
    .execute();
  await db.schema
    .createIndex('document_chunks_tenant_idx')
    .on('document_chunks')
    .columns(['tenant_id', 'embedding_model'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('document_chunks').ifExists().execute();
  await db.schema.alterTable('document_contents').dropColumn('page_texts').execute();
}
