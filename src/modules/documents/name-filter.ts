import { type Expression, PostgresAdapter, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

/**
 * The document list's filename filter (`search`: a case-insensitive substring of the name) as SQL.
 * The condition is always `lower(name) LIKE '%…%'` with the wildcards escaped, so the answers are
 * the LIKE's whatever serves it. What serves it is a trigram index (migration
 * 20261127_2100_document_name_index): on PostgreSQL the `pg_trgm` GIN index on `lower(filename)`
 * answers the LIKE itself; on SQLite an FTS5 trigram table narrows the candidates first, for
 * substrings of 3 characters or more (a trigram index has nothing to look up for fewer: those scan,
 * as before).
 */

/** Fewest characters a trigram lookup can serve. */
const TRIGRAM = 3;

/** Escapes LIKE wildcards so a search for `50%` matches the text `50%`. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The FTS5 query for names containing `text`: one phrase, which the trigram tokenizer matches as a
 * substring, case-folded. Double quotes are doubled, the phrase syntax's only escape; lowered as the
 * LIKE pattern is, so every name the LIKE accepts is among the phrase's matches.
 */
export function trigramPhrase(text: string): string {
  return `"${text.toLowerCase().replaceAll('"', '""')}"`;
}

/** Whether the trigram index can narrow a search for this text (it holds 3 characters or more). */
export function trigramServes(text: string): boolean {
  return [...text.toLowerCase()].length >= TRIGRAM;
}

/** Whether the query runs on PostgreSQL (the two dialects index names differently). */
function onPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * "The name of the document `documentId` of `tenantId` contains `search`", for the list's WHERE.
 * `lowerName` is that name lower-cased by SQL's `lower`: `lower(documents.filename)` itself (which
 * PostgreSQL's index covers) or a copy of it (`document_visibility.name_key`, which it does not).
 */
export function nameContains(
  db: Executor,
  tenantId: string,
  search: string,
  at: { documentId: RawBuilder<string>; lowerName: RawBuilder<string>; indexedOnPostgres: boolean },
): Expression<SqlBool> {
  const pattern = likePattern(search);
  if (onPostgres(db)) {
    // PostgreSQL's LIKE escapes with a backslash by default; an explicit ESCAPE would wrap the
    // pattern in like_escape(), which a generic plan cannot match against the trigram index.
    const like = sql<SqlBool>`${at.lowerName} like ${pattern}`;
    if (at.indexedOnPostgres || !trigramServes(search)) return like;
    return sql<SqlBool>`${at.documentId} in (
      select d.id from documents d where d.tenant_id = ${tenantId} and lower(d.filename) like ${pattern}
    ) and ${like}`;
  }
  const like = sql<SqlBool>`${at.lowerName} like ${pattern} escape '\\'`;
  if (!trigramServes(search)) return like;
  return sql<SqlBool>`${at.documentId} in (
    select r.document_id from document_names n join document_name_rows r on r.id = n.rowid
    where document_names match ${trigramPhrase(search)} and r.tenant_id = ${tenantId}
  ) and ${like}`;
}
