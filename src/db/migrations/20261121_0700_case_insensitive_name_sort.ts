import { type Kysely, sql } from 'kysely';

// Sorting documents by name is case-insensitive ("alpha" before "Zeta"): the name indexes become
// expression indexes on lower(filename), which both SQLite and PostgreSQL support.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_folder_name_idx').execute();
  await db.schema.dropIndex('documents_tenant_name_idx').execute();
  await sql`create index documents_folder_name_idx on documents (tenant_id, folder_id, lower(filename), id)`.execute(
    db,
  );
  await sql`create index documents_tenant_name_idx on documents (tenant_id, lower(filename), id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_folder_name_idx').execute();
  await db.schema.dropIndex('documents_tenant_name_idx').execute();
  await db.schema
    .createIndex('documents_folder_name_idx')
    .on('documents')
    .columns(['tenant_id', 'folder_id', 'filename', 'id'])
    .execute();
  await db.schema
    .createIndex('documents_tenant_name_idx')
    .on('documents')
    .columns(['tenant_id', 'filename', 'id'])
    .execute();
}
