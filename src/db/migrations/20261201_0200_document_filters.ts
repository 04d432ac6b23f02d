import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Issue 33: the document list filters by entity, processing state and AI state, and the document
 * shows the progress of its processing (docs/api-decisions.md §18).
 *
 * `document_entities`: one row per entity the document's `entities` column names (people,
 * organizations, dates, locations; amounts by their text), its value in comparison form
 * (`lower(trim(value))`, at most 200 characters). Kept by triggers on `documents` so every write
 * path (enrichment, review, reprocess, tenant import) keeps it; the instance transfer copies it as
 * it is (same columns on both dialects). `value_key` compares byte-wise on both dialects (SQLite's
 * default; `collate "C"` on PostgreSQL), so a prefix is one index range `[p, p || U+10FFFF)`.
 * Note `lower` folds ASCII only on SQLite, every letter on PostgreSQL.
 *
 * `(tenant_id, status|ai_status, created_at, id)`: the state filters of the list in its default
 * order, and their counts, from the index alone.
 *
 * `document_progress`: while a document is processed, the stage it is in and how many of its
 * pages extraction has read (pages_done of pages_total); removed when processing ends.
 */
/** The lists of `entities` (`places` is what enrichment writes for locations). */
const KINDS = `('people', 'organizations', 'dates', 'places', 'locations', 'amounts')`;

/**
 * The rows of one document (`doc`: `new`, or each row of `documents` when `from` names it), as a
 * select: each entity's comparison form; an amount ("USD 12,500.00") also by its number alone.
 */
function entityRows(postgres: boolean, doc: string, from = ''): string {
  const text = postgres ? `(v.value #>> '{}')` : 'v.value';
  const afterSpace = postgres
    ? `substr(${text}, strpos(${text}, ' ') + 1)`
    : `substr(${text}, instr(${text}, ' ') + 1)`;
  const value = `case p.part when 0 then ${text} else ${afterSpace} end`;
  const lists = postgres
    ? `jsonb_each(case when jsonb_typeof(${doc}.entities::jsonb) = 'object' then ${doc}.entities::jsonb else '{}'::jsonb end) k,
       jsonb_array_elements(case when jsonb_typeof(k.value) = 'array' then k.value else '[]'::jsonb end) v`
    : `json_each(case when json_valid(${doc}.entities) and json_type(${doc}.entities) = 'object' then ${doc}.entities else '{}' end) k,
       json_each(case when k.type = 'array' then k.value else '[]' end) v`;
  const isText = postgres ? `jsonb_typeof(v.value) = 'string'` : `v.type = 'text'`;
  return `select distinct ${doc}.tenant_id, ${doc}.id, case k.key when 'places' then 'locations' else k.key end,
      substr(lower(trim(${value})), 1, 200)
    from ${from}${lists}, (select 0 as part union all select 1) p
    where k.key in ${KINDS} and ${isText} and (p.part = 0 or k.key = 'amounts')
      and trim(${value}) <> ''`;
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql
    .raw(`create table document_entities (
      tenant_id text not null,
      document_id text not null references documents (id) on delete cascade,
      kind text not null,
      value_key text ${postgres ? 'collate "C" ' : ''}not null,
      constraint document_entities_pk primary key (tenant_id, document_id, kind, value_key)
    )`)
    .execute(db);
  await sql`create index document_entities_value_idx on document_entities (tenant_id, value_key, kind, document_id)`.execute(
    db,
  );
  const insert = 'insert into document_entities (tenant_id, document_id, kind, value_key)';
  if (postgres) {
    await sql
      .raw(`create function document_entities_sync() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          delete from document_entities where tenant_id = old.tenant_id and document_id = old.id;
        end if;
        ${insert} ${entityRows(true, 'new')} on conflict do nothing;
        return null;
      end $$`)
      .execute(db);
    await sql`create trigger document_entities_insert after insert on documents for each row execute function document_entities_sync()`.execute(
      db,
    );
    await sql`create trigger document_entities_update after update of entities on documents for each row when (old.entities is distinct from new.entities) execute function document_entities_sync()`.execute(
      db,
    );
    // Documents enriched before.
    await sql.raw(`${insert} ${entityRows(true, 'd', 'documents d, ')} on conflict do nothing`).execute(db);
  } else {
    await sql
      .raw(`create trigger document_entities_insert after insert on documents begin
        insert or ignore into document_entities (tenant_id, document_id, kind, value_key) ${entityRows(false, 'new')};
      end`)
      .execute(db);
    await sql
      .raw(`create trigger document_entities_update after update of entities on documents when old.entities is not new.entities begin
        delete from document_entities where tenant_id = old.tenant_id and document_id = old.id;
        insert or ignore into document_entities (tenant_id, document_id, kind, value_key) ${entityRows(false, 'new')};
      end`)
      .execute(db);
    // Documents enriched before.
    await sql
      .raw(`insert or ignore ${insert.slice('insert '.length)} ${entityRows(false, 'd', 'documents d, ')}`)
      .execute(db);
  }

  for (const column of ['status', 'ai_status'])
    await db.schema
      .createIndex(`documents_${column}_created_idx`)
      .on('documents')
      .columns(['tenant_id', column, 'created_at', 'id'])
      .execute();

  await db.schema
    .createTable('document_progress')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('pages_done', 'integer')
    .addColumn('pages_total', 'integer')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.dropTable('document_progress').ifExists().execute();
  for (const column of ['status', 'ai_status'])
    await db.schema.dropIndex(`documents_${column}_created_idx`).ifExists().execute();
  if (postgres) {
    await sql`drop trigger if exists document_entities_insert on documents`.execute(db);
    await sql`drop trigger if exists document_entities_update on documents`.execute(db);
    await sql`drop function if exists document_entities_sync()`.execute(db);
  } else {
    await sql`drop trigger if exists document_entities_insert`.execute(db);
    await sql`drop trigger if exists document_entities_update`.execute(db);
  }
  await db.schema.dropTable('document_entities').ifExists().execute();
}
