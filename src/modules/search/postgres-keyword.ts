import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DocumentQueries } from '../documents/index.ts';
import { highlightDocument } from './highlight.ts';
import { type KeywordEngine, type KeywordHit, type KeywordQuery, phaseOneCandidates } from './keyword-engine.ts';
import { type Clause, toTsquery } from './query-syntax.ts';
import { TS_RANK_HALF } from './scores.ts';

/** Characters of a document's text a highlight reads (bounded for huge documents). */
const HIGHLIGHT_CHARS = 100_000;
/** The indexed document of a row, as the documents module's condition and content take it. */
const documentId = sql.ref<string>('s.document_id');

/**
 * PostgreSQL full text: `search_documents.tsv` (GIN) in the `docuvault_search` configuration for
 * phrases; queries of stop words only ranked by `ts_rank_cd` over `stop_tsv` (the same positions of
 * the only lexemes such a query can hold: migration 20261130_0400); highlights marked in the process
 * (`highlightDocument`).
 */
export class PostgresKeywordEngine implements KeywordEngine {
  readonly half = TS_RANK_HALF;
  readonly #documents: Pick<DocumentQueries, 'contentOf'>;
  /** `documents`: the documents module's queries, for the texts highlights mark. */
  constructor(documents: Pick<DocumentQueries, 'contentOf'>) {
    this.#documents = documents;
  }

  async search(db: Executor, q: KeywordQuery): Promise<KeywordHit[]> {
    if (q.clauses.length === 0) return [];
    const only = q.onlyDocumentIds;
    if (only && only.length === 0) return [];
    const onlyClause = only ? sql`and s.document_id in (${sql.join(only.map((id) => sql`${id}`))})` : sql``;
    const query = sql`to_tsquery('docuvault_search', ${toTsquery(q.clauses, q.join)})`;
    // `search` serves only queries of stop words (the in-memory index ranks every other), so it reads
    // `stop_tsv`: a few bytes in the row instead of each match's whole `tsv` out of TOAST (2.5 s for a
    // word in 43k of 100k documents), with the same rank (migration 20261130_0400).
    // Phase 1 (as on SQLite): rank the tenant's matches in the index table alone and keep the best
    // few, then apply visibility and filters to those. Testing every match against `documents` before
    // the sort is what made common-word queries slow (docs/benchmarks.md, PostgreSQL at 100k).
    // Exact whenever it yields `limit` rows, or when phase one saw every match.
    const candidates = only ? only.length : phaseOneCandidates(q.limit);
    const first = await sql<{ document_id: string; rank: number; matches: number }>`
      with best as (
        select s.document_id, ts_rank_cd(s.stop_tsv, query) as rank
        from search_documents s, ${query} as query
        where s.tenant_id = ${q.tenantId} and s.stop_tsv @@ query ${onlyClause}
        order by rank desc, s.document_id
        limit ${candidates}
      )
      select s.document_id as document_id, s.rank as rank, (select count(*) from best)::int as matches
      from best as s
      where ${q.document(documentId)}
      order by s.rank desc, s.document_id
      limit ${q.limit}`.execute(db);
    let rows = first.rows;
    // (With no row left we cannot tell how many matched: the full ranking decides.)
    const sawEveryMatch = rows.length > 0 && rows[0]!.matches < candidates;
    if (rows.length < q.limit && !sawEveryMatch && !only) {
      const full = await sql<{ document_id: string; rank: number }>`
        select s.document_id as document_id, ts_rank_cd(s.stop_tsv, query) as rank
        from search_documents s, ${query} as query
        where s.tenant_id = ${q.tenantId} and s.stop_tsv @@ query and ${q.document(documentId)}
        order by rank desc, s.document_id
        limit ${q.limit}`.execute(db);
      rows = full.rows.map((r) => ({ ...r, matches: 0 }));
    }
    return rows.map((r) => ({ documentId: r.document_id, rank: Number(r.rank) }));
  }

  async matching(db: Executor, tenantId: string, clause: Clause): Promise<string[]> {
    const rows = await sql<{ document_id: string }>`
      select document_id from search_documents where tenant_id = ${tenantId} and tsv @@ to_tsquery('docuvault_search', ${toTsquery([clause])})`.execute(
      db,
    );
    return rows.rows.map((r) => r.document_id);
  }

  async highlights(
    db: Executor,
    tenantId: string,
    clauses: Clause[],
    _join: 'all' | 'any',
    documentIds: string[],
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (clauses.length === 0 || documentIds.length === 0) return out;
    // The texts are read and marked here rather than by `ts_headline`, which parsed and stemmed the
    // whole of each text in the database (~0.8 ms a document, two statements for a page: most of a
    // keyword request's time, docs/search.md); one primary-key read of the page's texts remains.
    // Every query word is marked whichever the join (as `ts_headline` did).
    const rows = await sql<{ document_id: string; text: string | null }>`
      select s.document_id as document_id, left(${this.#documents.contentOf(tenantId, documentId)}, ${HIGHLIGHT_CHARS}) as text
      from search_documents s
      where s.tenant_id = ${tenantId} and s.document_id in (${sql.join(documentIds.map((id) => sql`${id}`))})`.execute(
      db,
    );
    for (const r of rows.rows) if (r.text) out.set(r.document_id, highlightDocument(r.text, clauses));
    return out;
  }
}
