/**
 * Scores in [0, 1] comparable across queries and modes (docs/search.md, "Scores").
 *
 * Keyword: the engine's rank `s` (BM25 on SQLite, `ts_rank_cd` on PostgreSQL, both ≥ 0) through the
 * saturating `s / (s + k)`, with `k` the rank of a middling match (a score of 0.5). Semantic: the
 * cosine similarity of unit vectors, clamped to [0, 1].
 */

/** BM25 (FTS5, sign flipped) of a match scored 0.5: two rarer words once each in a 300-word document scores ~0.8. */
export const BM25_HALF = 5;
/** `ts_rank_cd` (no normalisation) of a match scored 0.5: about two covers of the query. */
export const TS_RANK_HALF = 0.2;

/** A keyword rank as a score in [0, 1). */
export function keywordScore(rank: number, half: number): number {
  if (!(rank > 0)) return 0;
  return rank / (rank + half);
}

/** A cosine similarity as a score in [0, 1]. */
export function cosineScore(cosine: number): number {
  if (!(cosine > 0)) return 0;
  return Math.min(1, cosine);
}

export type Relevance = 'high' | 'medium' | 'low' | 'very_low';

/** The spec's bands ("Search result"): 0.8 to 1.0 high, 0.6 to 0.8 medium, 0.4 to 0.6 low, below 0.4 very low. */
export function relevanceOf(score: number): Relevance {
  if (score >= 0.8) return 'high';
  if (score >= 0.6) return 'medium';
  if (score >= 0.4) return 'low';
  return 'very_low';
}

/** Rounds for the wire (six decimals: stable JSON, no float noise). */
export function roundScore(score: number): number {
  return Math.round(Math.min(1, Math.max(0, score)) * 1e6) / 1e6;
}
