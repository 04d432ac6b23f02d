import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * An index for the document list's filename substring filter (`search`), which otherwise reads
 * every filename of the tenant (`lower(filename) LIKE '%…%'`: 0.6-0.8 s for a tenant of a million
 * documents). The index only narrows the candidates: the list keeps its LIKE condition, so the
 * answers are the LIKE's, index or not.
 *
 * SQLite: an FTS5 table with the trigram tokenizer (a phrase of 3 or more characters matches every
 * name containing it, case-folded) over `document_name_rows`, whose integer key is the FTS rowid
 * (a documents rowid is not stable across VACUUM), kept by triggers on `documents` so every write
 * path (uploads, renames, imports, sandbox resets, tenant deletion) keeps it.
 *
 * PostgreSQL: a `pg_trgm` GIN index on `lower(filename)`, which serves `LIKE '%…%'` itself and is
 * kept by PostgreSQL. Where the extension cannot be created (not installed, or the role may not
 * create it) the migration says so and goes on without the index: the filter then scans as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    if (!(await createTrigramExtension(db))) return;
    await sql`create index documents_filename_trgm_idx on documents using gin (lower(filename) gin_trgm_ops)`.execute(
      db,
    );
    return;
  }
  await sql`create table document_name_rows (
    id integer primary key autoincrement,
    tenant_id text not null,
    document_id text not null unique
  )`.execute(db);
  await sql`create view document_name_text as
    select r.id as id, d.filename as name from document_name_rows r join documents d on d.id = r.document_id`.execute(
    db,
  );
  await sql`create virtual table document_names using fts5(
    name, content='document_name_text', content_rowid='id', tokenize='trigram case_sensitive 0'
  )`.execute(db);
  await sql`insert into document_name_rows (tenant_id, document_id) select tenant_id, id from documents order by tenant_id, id`.execute(
    db,
  );
  await sql`insert into document_names (document_names) values ('rebuild')`.execute(db);

  await sql`create trigger document_names_insert after insert on documents begin
    insert into document_name_rows (tenant_id, document_id) values (new.tenant_id, new.id);
    insert into document_names (rowid, name) values (last_insert_rowid(), new.filename);
  end`.execute(db);
  await sql`create trigger document_names_rename after update of filename on documents when old.filename is not new.filename begin
    insert into document_names (document_names, rowid, name) select 'delete', id, old.filename from document_name_rows where document_id = old.id;
    insert into document_names (rowid, name) select id, new.filename from document_name_rows where document_id = new.id;
  end`.execute(db);
  await sql`create trigger document_names_delete after delete on documents begin
    insert into document_names (document_names, rowid, name) select 'delete', id, old.filename from document_name_rows where document_id = old.id;
    delete from document_name_rows where document_id = old.id;
  end`.execute(db);
}

/** Creates `pg_trgm` if it is not there; false (with a warning saying what follows) when it cannot be. */
async function createTrigramExtension(db: Kysely<any>): Promise<boolean> {
  try {
    // In a savepoint: the migration runs in a transaction, which a failed statement would abort.
    await sql`savepoint pg_trgm_check`.execute(db);
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`release savepoint pg_trgm_check`.execute(db);
    return true;
  } catch (error) {
    await sql`rollback to savepoint pg_trgm_check`.execute(db);
    const reason = error instanceof Error ? error.message : String(error);
    console.warn(
      `pg_trgm is not available (${reason}): the document list's filename filter will scan the filenames. ` +
        'Install the PostgreSQL contrib package and run `create extension pg_trgm` and ' +
        '`create index documents_filename_trgm_idx on documents using gin (lower(filename) gin_trgm_ops)` to index it.',
    );
    return false;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop index if exists documents_filename_trgm_idx`.execute(db);
    return;
  }
  for (const name of ['insert', 'rename', 'delete'])
    await sql.raw(`drop trigger if exists document_names_${name}`).execute(db);
  await sql`drop table if exists document_names`.execute(db);
  await sql`drop view if exists document_name_text`.execute(db);
  await sql`drop table if exists document_name_rows`.execute(db);
}
