import type { Kysely } from 'kysely';

// Import projects (docs/imports.md): a project, the files its scan found (one row each, unique per
// source file so a file reached twice is listed once), the source folders and the library folders
// made for them, and the AI agents assigned to it. Deleting a project deletes these rows, never the
// documents it imported. Every lookup index starts with tenant_id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    /** JSON: the configuration without credentials. */
    .addColumn('config', 'text', (c) => c.notNull())
    /** JSON of the OAuth credentials, sealed (AES-256-GCM); never shown. */
    .addColumn('credentials', 'text')
    /** Why the scan failed (status `failed`). */
    .addColumn('error', 'text')
    .addColumn('created_by', 'text')
    .addColumn('scanned_at', 'bigint')
    .addColumn('started_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('import_projects_tenant_idx')
    .on('import_projects')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('import_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('import_projects.id').onDelete('cascade'))
    .addColumn('source_file_id', 'text', (c) => c.notNull())
    /** The Drive folder it was found in (its library folder is made on import). */
    .addColumn('source_folder_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    /** Null for Google-native files, which have no size until exported. */
    .addColumn('size', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('skip_reason', 'text')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    /** A pending file is not tried before this (retry delays, Retry-After). */
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
    /** The import lane working on it; null while nobody is. */
    .addColumn('lane', 'integer')
    .addColumn('document_id', 'text')
    .addColumn('finished_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('import_items_source_key', ['tenant_id', 'project_id', 'source_file_id'])
    .execute();
  await db.schema
    .createIndex('import_items_list_idx')
    .on('import_items')
    .columns(['tenant_id', 'project_id', 'id'])
    .execute();
  await db.schema
    .createIndex('import_items_due_idx')
    .on('import_items')
    .columns(['tenant_id', 'project_id', 'status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('import_folders')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('import_projects.id').onDelete('cascade'))
    .addColumn('source_folder_id', 'text', (c) => c.notNull())
    /** Null for the folders named in `folder_ids`. */
    .addColumn('parent_source_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    /** The library folder made for it, once made. */
    .addColumn('folder_id', 'text')
    .addPrimaryKeyConstraint('import_folders_pk', ['tenant_id', 'project_id', 'source_folder_id'])
    .execute();

  await db.schema
    .createTable('import_agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('import_projects.id').onDelete('cascade'))
    .addColumn('agent_type', 'text', (c) => c.notNull())
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('batch_size', 'integer')
    /** JSON object. */
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('auto_approve', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('import_agents_project_idx')
    .on('import_agents')
    .columns(['tenant_id', 'project_id', 'created_at'])
    .execute();

  // Imports skip a file whose content the tenant already holds: one index lookup per file.
  await db.schema.createIndex('documents_sha256_idx').on('documents').columns(['tenant_id', 'sha256']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_sha256_idx').execute();
  for (const table of ['import_agents', 'import_folders', 'import_items', 'import_projects'])
    await db.schema.dropTable(table).execute();
}
