import type { Executor } from '../../db/executor.ts';
import type { DocumentCondition } from '../documents/index.ts';
import type { Clause } from './query-syntax.ts';

/** Phase one of a keyword search reads this many of the index's best matches per result wanted (at least PHASE_ONE_MIN). */
export const PHASE_ONE_FACTOR = 4;
export const PHASE_ONE_MIN = 100;

/** How many best matches phase one ranks before visibility and filters. */
export function phaseOneCandidates(limit: number): number {
  return Math.max(PHASE_ONE_MIN, limit * PHASE_ONE_FACTOR);
}

/** One keyword hit: a document and the engine's rank (higher is better, ≥ 0). */
export interface KeywordHit {
  documentId: string;
  rank: number;
}

export interface KeywordQuery {
  tenantId: string;
  clauses: Clause[];
  /** All clauses must match, or any of them. */
  join: 'all' | 'any';
  /** Visibility and filters (the documents module's condition on a document id), applied inside the ranked query (before the limit). */
  document: DocumentCondition;
  limit: number;
  /** Only rank these documents (hybrid search scoring the other arm's finds). */
  onlyDocumentIds?: string[];
}

/**
 * The database's full-text index, one implementation per dialect (FTS5 on SQLite, tsvector on
 * PostgreSQL), behind one interface. Ranking is the in-memory keyword index's (lexical-index.ts,
 * per-tenant statistics, the same on both dialects); the database index checks phrases, marks
 * highlights, and ranks queries made only of stop words (which the in-memory index leaves out).
 */
export interface KeywordEngine {
  /** Best documents first; at most `limit`. */
  search(db: Executor, query: KeywordQuery): Promise<KeywordHit[]>;
  /** The best-matching passage of each document with matches marked (`highlight.ts` form). */
  highlights(
    db: Executor,
    tenantId: string,
    clauses: Clause[],
    join: 'all' | 'any',
    documentIds: string[],
  ): Promise<Map<string, string>>;
  /** The tenant's documents matching one clause (phrases: the in-memory index has no word positions). */
  matching(db: Executor, tenantId: string, clause: Clause): Promise<string[]>;
  /** The saturation constant that maps this engine's rank to 0.5 (`scores.ts`). */
  readonly half: number;
}
