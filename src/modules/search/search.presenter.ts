import { iso } from '../../lib/clock.ts';
import type { AppliedFilter } from './enhanced-search.ts';
import { relevanceOf, roundScore } from './scores.ts';
import type { SearchAnswer, SearchHit } from './search.service.ts';

/** A result as the API shows it. */
export function presentHit(hit: SearchHit) {
  const score = roundScore(hit.score);
  return {
    document: {
      id: hit.document.id,
      filename: hit.document.filename,
      ai_summary: hit.document.aiSummary,
      folder_id: hit.document.folderId,
      created_at: iso(hit.document.createdAt),
    },
    score,
    relevance: relevanceOf(score),
    highlight: hit.highlight,
    ...(hit.matched ? { matched: hit.matched } : {}),
    ...(hit.similarTo ? { similar_to: hit.similarTo } : {}),
  };
}

/** A search's answer as the API shows it (`applied_filters` for enhanced search). */
export function presentAnswer(answer: SearchAnswer & { appliedFilters?: AppliedFilter[] }) {
  return {
    results: answer.results.map(presentHit),
    mode: answer.mode,
    query: answer.query,
    total: answer.total,
    ...(answer.appliedFilters ? { applied_filters: answer.appliedFilters } : {}),
  };
}
