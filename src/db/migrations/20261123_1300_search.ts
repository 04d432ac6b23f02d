import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Search (docs/search.md): a full-text index of each document's extracted text, and a per-tenant
 * change log of passages that lets each process keep its in-memory vector index in step.
 *
 * Both are maintained by triggers on `document_contents` and `document_chunks`, so the index
 * changes in the same transaction as the text it indexes, whichever module writes it, and a
 * deleted document (whose rows cascade) leaves the index in the same statement.
 *
 * SQLite: FTS5 with porter stemming over unicode61 (diacritics folded). The FTS table reads its
 * text through a view over `document_contents` (external content: the text is stored once); its
 * rowid is `search_documents.id`, an AUTOINCREMENT key, so rowids are never reused (a rewritten
 * text gets a new one, which the keyword engine relies on to tell fresh entries from old ones).
 *
 * PostgreSQL: a `tsvector` per document with a GIN index, in a text search configuration
 * `docuvault_search` = english stemming, with `unaccent` in front when the extension can be
 * installed (it is optional: without it diacritics are not folded).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  // The vector change log, the same on both dialects: `version` counts passage changes per tenant;
  // each document remembers the version of its last change.
  await db.schema
    .createTable('search_state')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('search_changes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_changes_pk', ['tenant_id', 'document_id'])
    .execute();
  await db.schema
    .createIndex('search_changes_version_idx')
    .on('search_changes')
    .columns(['tenant_id', 'version'])
    .execute();

  if (postgres) return upPostgres(db);

  await sql`create table search_documents (
    id integer primary key autoincrement,
    tenant_id text not null,
    document_id text not null unique
  )`.execute(db);
  await sql`create view search_document_text as
    select s.id as id, c.content as body from search_documents s join document_contents c on c.document_id = s.document_id`.execute(
    db,
  );
  await sql`create virtual table search_text using fts5(
    body, content='search_document_text', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
  )`.execute(db);
  // Term statistics (documents per term) for the keyword engine's plan.
  await sql`create virtual table search_terms using fts5vocab(search_text, 'row')`.execute(db);

  await sql`create trigger search_contents_insert after insert on document_contents begin
    insert into search_documents (tenant_id, document_id) values (new.tenant_id, new.document_id);
    insert into search_text (rowid, body) values (last_insert_rowid(), new.content);
  end`.execute(db);
  await sql`create trigger search_contents_delete after delete on document_contents begin
    insert into search_text (search_text, rowid, body) select 'delete', id, old.content from search_documents where document_id = old.document_id;
    delete from search_documents where document_id = old.document_id;
  end`.execute(db);
  await sql`create trigger search_contents_update after update of content on document_contents begin
    insert into search_text (search_text, rowid, body) select 'delete', id, old.content from search_documents where document_id = old.document_id;
    delete from search_documents where document_id = old.document_id;
    insert into search_documents (tenant_id, document_id) values (new.tenant_id, new.document_id);
    insert into search_text (rowid, body) values (last_insert_rowid(), new.content);
  end`.execute(db);

  for (const [event, row] of [
    ['insert', 'new'],
    ['delete', 'old'],
  ] as const) {
    await sql
      .raw(`create trigger search_chunks_${event} after ${event} on document_chunks begin
        insert into search_state (tenant_id, version) values (${row}.tenant_id, 1)
          on conflict (tenant_id) do update set version = version + 1;
        insert into search_changes (tenant_id, document_id, version)
          values (${row}.tenant_id, ${row}.document_id, (select version from search_state where tenant_id = ${row}.tenant_id))
          on conflict (tenant_id, document_id) do update set version = excluded.version;
      end`)
      .execute(db);
  }

  // Documents already processed before this migration.
  await sql`insert into search_documents (tenant_id, document_id) select tenant_id, document_id from document_contents`.execute(
    db,
  );
  await sql`insert into search_text (search_text) values ('rebuild')`.execute(db);
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  // unaccent is optional: create it when the server has it and we may (a failure is swallowed in a subtransaction).
  await sql`do $$ begin
    if exists (select 1 from pg_available_extensions where name = 'unaccent') then
      begin
        create extension if not exists unaccent;
      exception when others then null;
      end;
    end if;
  end $$`.execute(db);
  await sql`create text search configuration docuvault_search (copy = english)`.execute(db);
  await sql`do $$ begin
    if exists (select 1 from pg_extension where extname = 'unaccent') then
      alter text search configuration docuvault_search alter mapping for hword, hword_part, word with unaccent, english_stem;
    end if;
  end $$`.execute(db);

  await sql`create table search_documents (
    document_id text primary key references documents (id) on delete cascade,
    tenant_id text not null,
    tsv tsvector not null
  )`.execute(db);
  await sql`create index search_documents_tsv_idx on search_documents using gin (tsv)`.execute(db);
  await sql`create index search_documents_tenant_idx on search_documents (tenant_id)`.execute(db);

  // A tsvector holds at most 1 MB: a very long text is indexed in part rather than failing its upload's transaction.
  await sql`create function search_tsvector(body text) returns tsvector language plpgsql stable as $$
    begin
      return to_tsvector('docuvault_search', body);
    exception when program_limit_exceeded then
      return to_tsvector('docuvault_search', left(body, 200000));
    end $$`.execute(db);
  await sql`create function search_contents_changed() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        delete from search_documents where document_id = old.document_id;
        return null;
      end if;
      insert into search_documents (document_id, tenant_id, tsv) values (new.document_id, new.tenant_id, search_tsvector(new.content))
        on conflict (document_id) do update set tsv = excluded.tsv, tenant_id = excluded.tenant_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger search_contents_insert_delete after insert or delete on document_contents
    for each row execute function search_contents_changed()`.execute(db);
  await sql`create trigger search_contents_update after update of content on document_contents
    for each row execute function search_contents_changed()`.execute(db);

  // The version row is locked until commit, so versions are handed out in commit order per tenant:
  // a reader that sees version V has seen every change up to V.
  await sql`create function search_chunks_changed() returns trigger language plpgsql as $$
    declare
      r record;
      v bigint;
    begin
      if tg_op = 'DELETE' then r := old; else r := new; end if;
      insert into search_state (tenant_id, version) values (r.tenant_id, 1)
        on conflict (tenant_id) do update set version = search_state.version + 1
        returning version into v;
      insert into search_changes (tenant_id, document_id, version) values (r.tenant_id, r.document_id, v)
        on conflict (tenant_id, document_id) do update set version = excluded.version;
      return null;
    end $$`.execute(db);
  await sql`create trigger search_chunks_changed after insert or delete on document_chunks
    for each row execute function search_chunks_changed()`.execute(db);

  await sql`insert into search_documents (document_id, tenant_id, tsv)
    select document_id, tenant_id, search_tsvector(content) from document_contents`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists search_chunks_changed on document_chunks`.execute(db);
    await sql`drop trigger if exists search_contents_insert_delete on document_contents`.execute(db);
    await sql`drop trigger if exists search_contents_update on document_contents`.execute(db);
    await sql`drop function if exists search_chunks_changed()`.execute(db);
    await sql`drop function if exists search_contents_changed()`.execute(db);
    await sql`drop table if exists search_documents`.execute(db);
    await sql`drop function if exists search_tsvector(text)`.execute(db);
    await sql`drop text search configuration if exists docuvault_search`.execute(db);
  } else {
    for (const name of [
      'search_chunks_insert',
      'search_chunks_delete',
      'search_contents_insert',
      'search_contents_delete',
      'search_contents_update',
    ]) {
      await sql.raw(`drop trigger if exists ${name}`).execute(db);
    }
    await sql`drop table if exists search_terms`.execute(db);
    await sql`drop table if exists search_text`.execute(db);
    await sql`drop view if exists search_document_text`.execute(db);
    await sql`drop table if exists search_documents`.execute(db);
  }
  await db.schema.dropTable('search_changes').ifExists().execute();
  await db.schema.dropTable('search_state').ifExists().execute();
}
