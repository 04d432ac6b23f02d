import { type Kysely, sql } from 'kysely';

// Folders, documents (with their extracted text kept apart so list rows stay narrow), tags,
// shares and batch jobs. Every index starts with tenant_id; the document list indexes cover each
// sort of GET /documents with and without a folder filter, ending in id for a stable order.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('parent_id', 'text', (c) => c.references('folders.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** Lower-cased name: siblings are unique case-insensitively. */
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('icon', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`create unique index folders_sibling_name_idx on folders (tenant_id, coalesce(parent_id, ''), name_key)`.execute(
    db,
  );
  await db.schema.createIndex('folders_parent_idx').on('folders').columns(['tenant_id', 'parent_id']).execute();

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('folder_id', 'text', (c) => c.references('folders.id'))
    .addColumn('owner_id', 'text')
    .addColumn('collection_id', 'text')
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('original_filename', 'text', (c) => c.notNull())
    .addColumn('extension', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('thumbnail_key', 'text')
    .addColumn('thumbnail_type', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('ai_status', 'text', (c) => c.notNull())
    .addColumn('enable_ai', 'integer', (c) => c.notNull())
    .addColumn('ai_summary', 'text')
    .addColumn('ai_tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('entities', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('processing_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  const listIndexes: [string, string][] = [
    ['created', 'created_at'],
    ['updated', 'updated_at'],
    ['name', 'filename'],
    ['size', 'file_size'],
  ];
  for (const [suffix, column] of listIndexes) {
    await db.schema
      .createIndex(`documents_folder_${suffix}_idx`)
      .on('documents')
      .columns(['tenant_id', 'folder_id', column, 'id'])
      .execute();
    await db.schema
      .createIndex(`documents_tenant_${suffix}_idx`)
      .on('documents')
      .columns(['tenant_id', column, 'id'])
      .execute();
  }
  await db.schema.createIndex('documents_owner_idx').on('documents').columns(['tenant_id', 'owner_id']).execute();
  await db.schema
    .createIndex('documents_collection_idx')
    .on('documents')
    .columns(['tenant_id', 'collection_id'])
    .execute();

  await db.schema
    .createTable('document_contents')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('pages', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('tags_tenant_name_key', ['tenant_id', 'name_key'])
    .execute();

  await db.schema
    .createTable('document_tags')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('tag_id', 'text', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_tags_pk', ['document_id', 'tag_id'])
    .execute();
  await db.schema
    .createIndex('document_tags_tag_idx')
    .on('document_tags')
    .columns(['tenant_id', 'tag_id', 'document_id'])
    .execute();

  await db.schema
    .createTable('document_shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('cascade'))
    .addColumn('permission', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`create unique index document_shares_target_idx on document_shares (tenant_id, document_id, coalesce(user_id, ''), coalesce(workspace_id, ''))`.execute(
    db,
  );
  await db.schema
    .createIndex('document_shares_user_idx')
    .on('document_shares')
    .columns(['tenant_id', 'user_id', 'document_id'])
    .execute();
  await db.schema
    .createIndex('document_shares_workspace_idx')
    .on('document_shares')
    .columns(['tenant_id', 'workspace_id', 'document_id'])
    .execute();

  await db.schema
    .createTable('batch_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('total', 'integer', (c) => c.notNull())
    /** JSON [{filename, error, code, message}] of the files refused at upload. */
    .addColumn('rejected', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('batch_jobs_tenant_idx').on('batch_jobs').columns(['tenant_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'batch_jobs',
    'document_shares',
    'document_tags',
    'tags',
    'document_contents',
    'documents',
    'folders',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
