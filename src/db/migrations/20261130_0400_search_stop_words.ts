import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * PostgreSQL: queries made only of stop words ranked without reading every match's text vector
 * (docs/search.md, "Where a request's time goes"). The in-memory keyword index leaves the query
 * syntax's English stop words out, so such a query is ranked by `ts_rank_cd` in the database; most
 * of them are dropped by `docuvault_search` too (`english_stem`), but a few are indexed (`would`,
 * `could` with PostgreSQL 15's list), match most documents, and ranking them read every match's
 * `tsv` out of TOAST (~3 KB each: 2.5 s for 43k matches at 100k documents).
 *
 * `stop_tsv` is the document's `tsv` keeping only the lexemes a query of stop words can hold (the
 * stop words below through `docuvault_search`, as it stems them at migration time), with their
 * positions: a few bytes, stored in the row. `ts_rank_cd` reads only the query's lexemes' positions
 * (and no length at normalisation 0), so its rank over `stop_tsv` is the rank over `tsv`, bit for bit;
 * a generated column, so every writer of `tsv` (the trigger, tenant imports) keeps it in step.
 * Adding it rewrites `search_documents` (~1 minute for 100k documents on a loaded machine).
 * SQLite's FTS5 ranks stop words itself and needs nothing.
 */

/** The query syntax's stop words at this migration (src/modules/search/query-syntax.ts; a test checks they still agree). */
const STOP_WORDS =
  'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing ' +
  'down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more ' +
  'most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their ' +
  'theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why ' +
  'will with would you your yours yourself yourselves';

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ lexeme: string }>`
    select lexeme from unnest(to_tsvector('docuvault_search', ${STOP_WORDS}))`.execute(db);
  const lexemes = rows.length > 0 ? sql.join(rows.map((r) => sql.lit(r.lexeme))) : sql``;
  // Weight A marks the kept lexemes for ts_filter; every position goes back to D (search_tsvector sets no weights).
  await sql`
    create function search_stop_tsvector(tsv tsvector) returns tsvector
      language sql immutable parallel safe
      as $$ select setweight(ts_filter(setweight(tsv, 'A', array[${lexemes}]::text[]), '{a}'), 'D') $$`.execute(db);
  await sql`alter table search_documents add column stop_tsv tsvector generated always as (search_stop_tsvector(tsv)) stored`.execute(
    db,
  );
  await sql`create index search_documents_stop_tsv_idx on search_documents using gin (stop_tsv)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table search_documents drop column if exists stop_tsv`.execute(db);
  await sql`drop function if exists search_stop_tsvector(tsvector)`.execute(db);
}
