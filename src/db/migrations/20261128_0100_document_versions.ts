import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Document versions (docs/versions.md). A document's row always describes its current version
 * (storage key, size, SHA-256, type), so downloads, processing, search and chat follow it
 * unchanged; `document_versions` keeps every version once a document has a second one (version 1
 * is recorded when version 2 arrives), with `is_current` on exactly one of them.
 *
 * Storage usage (`tenant_document_counts.bytes`, the quota) already counts the current version
 * through the triggers on `documents`; the triggers below add the bytes of every other version,
 * so each version's bytes count once, whatever path adds, restores or deletes versions (a
 * document's deletion removes its versions by cascade).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('document_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('extension', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('is_current', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('document_versions_number_idx')
    .unique()
    .on('document_versions')
    .columns(['tenant_id', 'document_id', 'number'])
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql
      .raw(`create function document_versions_bytes() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') and old.is_current = 0 then
          update tenant_document_counts set bytes = bytes - old.file_size where tenant_id = old.tenant_id;
        end if;
        if tg_op in ('INSERT', 'UPDATE') and new.is_current = 0 then
          update tenant_document_counts set bytes = bytes + new.file_size where tenant_id = new.tenant_id;
        end if;
        return null;
      end $$`)
      .execute(db);
    await sql
      .raw(
        'create trigger document_versions_bytes after insert or delete or update of is_current, file_size on document_versions for each row execute function document_versions_bytes()',
      )
      .execute(db);
    return;
  }
  await sql
    .raw(`create trigger document_versions_bytes_insert after insert on document_versions when new.is_current = 0
      begin update tenant_document_counts set bytes = bytes + new.file_size where tenant_id = new.tenant_id; end`)
    .execute(db);
  await sql
    .raw(`create trigger document_versions_bytes_delete after delete on document_versions when old.is_current = 0
      begin update tenant_document_counts set bytes = bytes - old.file_size where tenant_id = old.tenant_id; end`)
    .execute(db);
  await sql
    .raw(`create trigger document_versions_bytes_update after update of is_current, file_size on document_versions
      begin
        update tenant_document_counts set bytes = bytes
          - (case when old.is_current = 0 then old.file_size else 0 end)
          + (case when new.is_current = 0 then new.file_size else 0 end)
        where tenant_id = new.tenant_id;
      end`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.dropTable('document_versions').ifExists().execute();
    await sql.raw('drop function if exists document_versions_bytes()').execute(db);
    return;
  }
  await db.schema.dropTable('document_versions').ifExists().execute();
}
