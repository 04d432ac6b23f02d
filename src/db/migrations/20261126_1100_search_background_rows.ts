import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Keyword scores in a small index (SQLite only; docs/search.md "Scores").
 *
 * FTS5's BM25 weighs a term by ln((N − n + 0.5) / (n + 0.5)), N the documents in the index and n
 * those holding the term, floored at 10⁻⁶. In a new installation (one document, or a term in most
 * of a handful) that weight is ≤ 0, so a perfect match scored 0 and `min_score` dropped it. The
 * index gets a fixed background of rows that hold one padding word no one searches for and that no
 * document owns (negative rowids: `search_documents` ids are positive, so a match on them finds
 * nothing): they count in N and in the average length, the usual smoothing of BM25's document
 * frequency.
 * From a few hundred documents on they change scores by less than the ranking's own noise.
 * PostgreSQL ranks with `ts_rank_cd`, which uses no corpus statistics.
 */
const BACKGROUND_ROWS = 20;
/** A background row's text: 150 tokens (a short page) of a word no query contains. */
const BACKGROUND_TEXT = Array.from({ length: 150 }, () => 'zzqbackgroundzzq').join(' ');

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  for (let i = 1; i <= BACKGROUND_ROWS; i++) {
    await sql`insert into search_text (rowid, body) values (${-i}, ${BACKGROUND_TEXT})`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  for (let i = 1; i <= BACKGROUND_ROWS; i++) {
    await sql`insert into search_text (search_text, rowid, body) values ('delete', ${-i}, ${BACKGROUND_TEXT})`.execute(
      db,
    );
  }
}
