import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DocumentQueries } from '../documents/index.ts';
import { MARK_END, MARK_START, markupFromSentinels } from './highlight.ts';
import { type KeywordEngine, type KeywordHit, type KeywordQuery, phaseOneCandidates } from './keyword-engine.ts';
import { type Clause, toTsquery } from './query-syntax.ts';
import { TS_RANK_HALF } from './scores.ts';

/** Characters of a document's text `ts_headline` reads (it parses the whole input: bounded for huge documents). */
const HEADLINE_CHARS = 100_000;
/** The indexed document of a row, as the documents module's condition and content take it. */
const documentId = sql.ref<string>('s.document_id');
/** Concurrent `ts_headline` statements for one page of results, at most (one per core of this machine's database is enough). */
const HEADLINE_STATEMENTS = 2;
/** Fewer documents than this are not split (a statement's round trip outweighs their headlines). */
const HEADLINE_GROUP_MIN = 4;

/**
 * PostgreSQL full text: `search_documents.tsv` (GIN) in the `docuvault_search` configuration,
 * ranked by `ts_rank_cd`; highlights by `ts_headline` (one best fragment).
 */
export class PostgresKeywordEngine implements KeywordEngine {
  readonly half = TS_RANK_HALF;
  readonly #documents: Pick<DocumentQueries, 'contentOf'>;
  /** `documents`: the documents module's queries, for the text `ts_headline` marks. */
  constructor(documents: Pick<DocumentQueries, 'contentOf'>) {
    this.#documents = documents;
  }

  async search(db: Executor, q: KeywordQuery): Promise<KeywordHit[]> {
    if (q.clauses.length === 0) return [];
    const only = q.onlyDocumentIds;
    if (only && only.length === 0) return [];
    const onlyClause = only ? sql`and s.document_id in (${sql.join(only.map((id) => sql`${id}`))})` : sql``;
    const query = sql`to_tsquery('docuvault_search', ${toTsquery(q.clauses, q.join)})`;
    // Phase 1 (as on SQLite): rank the tenant's matches in the index table alone and keep the best
    // few, then apply visibility and filters to those. Testing every match against `documents` before
    // the sort is what made common-word queries slow (docs/benchmarks.md, PostgreSQL at 100k).
    // Exact whenever it yields `limit` rows, or when phase one saw every match.
    const candidates = only ? only.length : phaseOneCandidates(q.limit);
    const first = await sql<{ document_id: string; rank: number; matches: number }>`
      with best as (
        select s.document_id, ts_rank_cd(s.tsv, query) as rank
        from search_documents s, ${query} as query
        where s.tenant_id = ${q.tenantId} and s.tsv @@ query ${onlyClause}
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
        select s.document_id as document_id, ts_rank_cd(s.tsv, query) as rank
        from search_documents s, ${query} as query
        where s.tenant_id = ${q.tenantId} and s.tsv @@ query and ${q.document(documentId)}
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
    join: 'all' | 'any',
    documentIds: string[],
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (clauses.length === 0 || documentIds.length === 0) return out;
    const options = `StartSel=${MARK_START}, StopSel=${MARK_END}, MaxFragments=1, MaxWords=32, MinWords=12, ShortWord=2, FragmentDelimiter=" … "`;
    const tsquery = toTsquery(clauses, join);
    // `ts_headline` parses and marks the whole text of each document (~0.5–1 ms for 300 words, most of
    // a keyword request's time on PostgreSQL): the page's documents are split over concurrent
    // statements, each on its own pooled connection (so its own backend and core).
    const groups = Math.min(HEADLINE_STATEMENTS, Math.ceil(documentIds.length / HEADLINE_GROUP_MIN));
    const size = Math.ceil(documentIds.length / groups);
    const parts = await Promise.all(
      Array.from({ length: groups }, (_, g) => {
        const ids = documentIds.slice(g * size, (g + 1) * size);
        return sql<{ document_id: string; snippet: string | null }>`
          select s.document_id as document_id,
            ts_headline('docuvault_search', left(${this.#documents.contentOf(tenantId, documentId)}, ${HEADLINE_CHARS}), to_tsquery('docuvault_search', ${tsquery}), ${options}) as snippet
          from search_documents s
          where s.tenant_id = ${tenantId} and s.document_id in (${sql.join(ids.map((id) => sql`${id}`))})`.execute(db);
      }),
    );
    for (const r of parts.flatMap((p) => p.rows)) if (r.snippet) out.set(r.document_id, markupFromSentinels(r.snippet));
    return out;
  }
}
