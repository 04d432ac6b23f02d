import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Each folder keeps the number of documents directly inside it, maintained by triggers on
 * `documents` (insert, delete, move), so listing folders with counts reads folder rows instead of
 * counting every document of the tenant (issue 4: counts stay fast with many documents). Triggers
 * cover every write path, whichever module makes it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('folders')
    .addColumn('document_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update folders set document_count = (select count(*) from documents d where d.folder_id = folders.id)`.execute(
    db,
  );

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function documents_folder_count() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          update folders set document_count = document_count + 1 where id = new.folder_id;
        elsif tg_op = 'DELETE' then
          update folders set document_count = document_count - 1 where id = old.folder_id;
        else
          -- A move touches both folders in one statement, so rows are locked in one (index) order
          -- and two opposite moves at once cannot deadlock.
          update folders set document_count = document_count + case when id = new.folder_id then 1 else -1 end
          where id in (old.folder_id, new.folder_id);
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger documents_folder_count_insert_delete after insert or delete on documents
      for each row execute function documents_folder_count()`.execute(db);
    await sql`create trigger documents_folder_count_move after update of folder_id on documents
      for each row when (old.folder_id is distinct from new.folder_id) execute function documents_folder_count()`.execute(
      db,
    );
    return;
  }
  await sql`create trigger documents_folder_count_insert after insert on documents when new.folder_id is not null
    begin update folders set document_count = document_count + 1 where id = new.folder_id; end`.execute(db);
  await sql`create trigger documents_folder_count_delete after delete on documents when old.folder_id is not null
    begin update folders set document_count = document_count - 1 where id = old.folder_id; end`.execute(db);
  await sql`create trigger documents_folder_count_move after update of folder_id on documents when old.folder_id is not new.folder_id
    begin
      update folders set document_count = document_count - 1 where id = old.folder_id;
      update folders set document_count = document_count + 1 where id = new.folder_id;
    end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists documents_folder_count_insert_delete on documents`.execute(db);
    await sql`drop trigger if exists documents_folder_count_move on documents`.execute(db);
    await sql`drop function if exists documents_folder_count()`.execute(db);
  } else {
    for (const name of ['insert', 'delete', 'move'])
      await sql.raw(`drop trigger if exists documents_folder_count_${name}`).execute(db);
  }
  await db.schema.alterTable('folders').dropColumn('document_count').execute();
}
