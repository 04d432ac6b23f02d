import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { MARK_END, MARK_START, markupFromSentinels } from './highlight.ts';
import { type KeywordEngine, type KeywordHit, type KeywordQuery, phaseOneCandidates } from './keyword-engine.ts';
import { type Clause, toFts5 } from './query-syntax.ts';
import { BM25_HALF } from './scores.ts';

/** Tokens of context in a snippet. */
const SNIPPET_TOKENS = 32;
/** The indexed document of a row, as the documents module's condition takes it. */
const documentId = sql.ref<string>('s.document_id');

/**
 * FTS5 over `search_text` (porter + unicode61, diacritics folded), ranked by `bm25()`. The MATCH
 * drives the query (CROSS JOIN fixes that order: the planner otherwise may start from the tenant's
 * documents); each match's document must pass visibility and filters (`q.document`, one probe of
 * `documents` by id) before the sort and limit (so a member's top-k is the top-k of what they may see).
 */
export class SqliteKeywordEngine implements KeywordEngine {
  readonly half = BM25_HALF;

  async search(db: Executor, q: KeywordQuery): Promise<KeywordHit[]> {
    if (q.clauses.length === 0) return [];
    const match = toFts5(q.clauses, q.join);
    const only = q.onlyDocumentIds;
    if (only) {
      if (only.length === 0) return [];
      // Given documents: one pass over the matches, keeping theirs. `+rowid` stops SQLite from handing
      // the list to FTS5 as one rowid lookup per document: each lookup restarts the query, and bm25()
      // recounts its terms' documents over whole doclists each time (57 → 6.6 ms for hybrid's ~50
      // documents at 100k, docs/benchmarks-search.md).
      const rows = await sql<{ document_id: string; rank: number }>`
        select s.document_id as document_id, t.rank as rank
        from (
          select rowid as id, bm25(search_text) as rank from search_text
          where search_text match ${match}
            and +rowid in (select id from search_documents where tenant_id = ${q.tenantId} and document_id in (${sql.join(only.map((id) => sql`${id}`))}))
        ) as t
          cross join search_documents s
        where s.id = t.id and ${q.document(documentId)}
        order by t.rank limit ${q.limit}`.execute(db);
      return rows.rows.map((r) => ({ documentId: r.document_id, rank: -Number(r.rank) }));
    }
    // Phase 1: the index's own best matches (FTS5 sorts by rank inside the virtual table, cheap), then
    // tenant, visibility and filters on those few. When they leave fewer than `limit`, phase 2 ranks
    // every match that passes them (exact, slower for common words).
    const candidates = phaseOneCandidates(q.limit);
    const first = await sql<{ document_id: string; rank: number }>`
      select s.document_id as document_id, t.rank as rank
      from (select rowid as id, rank from search_text where search_text match ${match} order by rank limit ${candidates}) as t
        cross join search_documents s
      where s.id = t.id and s.tenant_id = ${q.tenantId} and ${q.document(documentId)}
      order by t.rank limit ${q.limit}`.execute(db);
    let rows = first.rows;
    if (rows.length < q.limit) {
      const full = await sql<{ document_id: string; rank: number }>`
        select s.document_id as document_id, bm25(search_text) as rank
        from search_text cross join search_documents s
        where search_text match ${match} and s.id = search_text.rowid and s.tenant_id = ${q.tenantId} and ${q.document(documentId)}
        order by rank limit ${q.limit}`.execute(db);
      rows = full.rows;
    }
    return rows.map((r) => ({ documentId: r.document_id, rank: -Number(r.rank) }));
  }

  async matching(db: Executor, tenantId: string, clause: Clause): Promise<string[]> {
    const rows = await sql<{ document_id: string }>`
      select s.document_id as document_id from search_text cross join search_documents s
      where search_text match ${toFts5([clause])} and s.id = search_text.rowid and s.tenant_id = ${tenantId}`.execute(
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
    const rows = await sql<{ document_id: string; snippet: string | null }>`
      select s.document_id as document_id, snippet(search_text, 0, ${MARK_START}, ${MARK_END}, '…', ${SNIPPET_TOKENS}) as snippet
      from search_documents s cross join search_text
      where s.tenant_id = ${tenantId} and s.document_id in (${sql.join(documentIds.map((id) => sql`${id}`))})
        and search_text.rowid = s.id and search_text match ${toFts5(clauses, join)}`.execute(db);
    for (const r of rows.rows) if (r.snippet) out.set(r.document_id, markupFromSentinels(r.snippet));
    return out;
  }
}
