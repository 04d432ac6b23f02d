import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Search keeps each tenant's keyword index in memory (docs/search.md, "Keyword scoring"), refreshed
 * like the passage vectors: through the tenant's change version (`search_state`) and the per-document
 * change log (`search_changes`). Until now only passage changes moved them; a document's text
 * changing (extraction, reprocessing, deletion) now does too, in the same transaction, so a document
 * is found by keyword as soon as its text is extracted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // search_chunks_changed() reads tenant_id and document_id of the row: document_contents has both.
    await sql`create trigger search_contents_version after insert or delete or update of content on document_contents
      for each row execute function search_chunks_changed()`.execute(db);
    return;
  }
  for (const [event, row] of [
    ['insert', 'new'],
    ['delete', 'old'],
    ['update of content', 'new'],
  ] as const) {
    await sql
      .raw(`create trigger search_contents_version_${event.split(' ')[0]} after ${event} on document_contents begin
        insert into search_state (tenant_id, version) values (${row}.tenant_id, 1)
          on conflict (tenant_id) do update set version = version + 1;
        insert into search_changes (tenant_id, document_id, version)
          values (${row}.tenant_id, ${row}.document_id, (select version from search_state where tenant_id = ${row}.tenant_id))
          on conflict (tenant_id, document_id) do update set version = excluded.version;
      end`)
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists search_contents_version on document_contents`.execute(db);
    return;
  }
  for (const event of ['insert', 'delete', 'update'])
    await sql.raw(`drop trigger if exists search_contents_version_${event}`).execute(db);
}
