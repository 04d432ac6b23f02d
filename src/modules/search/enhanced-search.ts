import type { AuthContext } from '../../domain/auth-context.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import type { Clock } from '../../lib/clock.ts';
import type { DocumentFilters } from '../documents/index.ts';
import { understandQuery } from './query-understanding.ts';
import { requireQuery, type SearchAnswer, type SearchHit, type SearchService } from './search.service.ts';

/** Tags read for query understanding (a tenant with more has its first ones by name matched). */
const MAX_TAGS = 2_000;
/** Top hits whose neighbours `include_similar` adds, and neighbours per hit. */
const SIMILAR_SOURCES = 3;
const SIMILAR_PER_SOURCE = 3;

export interface EnhancedInput {
  query: string;
  limit: number;
  minScore: number;
  includeSimilar: boolean;
  filters: DocumentFilters;
  /** The filters the request gave, for `applied_filters`. */
  requested: RequestedFilter[];
}

/** A filter the request gave. */
export interface RequestedFilter {
  type: 'date_range' | 'file_type' | 'tag' | 'ai_category' | 'folder';
  value: unknown;
  /** The words of the query it was read from (query filters only). */
  text?: string;
}

/** A filter the search applied, from the request or read from the query. */
export type AppliedFilter = RequestedFilter & { source: 'query' | 'request' };

/**
 * `POST /search/enhanced` (Pro and above, 1 credit): query understanding turns dates, file types and
 * tag names written in the query into filters (merged with the request's own), the rest of the query
 * is searched hybrid (0.5 / 0.5), and `include_similar` adds the nearest neighbours of the top hits.
 */
export class EnhancedSearch {
  readonly #search: SearchService;
  readonly #clock: Clock;
  constructor(deps: { search: SearchService; clock: Clock }) {
    this.#search = deps.search;
    this.#clock = deps.clock;
  }

  async run(auth: AuthContext, input: EnhancedInput): Promise<SearchAnswer & { appliedFilters: AppliedFilter[] }> {
    requireFeature(auth, 'enhancedSearch');
    const q = requireQuery(input.query);
    const { database, documents } = this.#search.deps;
    return this.#search.charged(auth, 'enhanced_search', async () => {
      const tagNames = await documents.tagNames(database.db, auth.tenant.id, MAX_TAGS);
      const understanding = understandQuery(q, { now: this.#clock.now(), tagNames });
      const filters: DocumentFilters = { ...input.filters };
      const applied: AppliedFilter[] = input.requested.map((f) => ({ ...f, source: 'request' }));
      for (const f of understanding.understood) {
        // A filter the request gave explicitly wins over the same kind read from the query.
        if (f.type === 'date_range' && (filters.createdFrom !== undefined || filters.createdTo !== undefined)) continue;
        if (f.type === 'date_range') {
          if (understanding.createdFrom !== undefined) filters.createdFrom = understanding.createdFrom;
          if (understanding.createdTo !== undefined) filters.createdTo = understanding.createdTo;
        } else if (f.type === 'file_type') {
          filters.fileTypes = [...(filters.fileTypes ?? []), ...(f.value as string[])];
        } else {
          filters.tagNames = [...(filters.tagNames ?? []), f.value as string];
        }
        applied.push({ ...f, source: 'query' });
      }
      const results = await this.#search.hybridResults(auth, understanding.text, {
        semanticWeight: 0.5,
        textWeight: 0.5,
        limit: input.limit,
        filters,
        minScore: input.minScore,
      });
      if (input.includeSimilar)
        results.push(...(await this.#similar(auth, results, filters, input.minScore, understanding.text)));
      return { results, mode: 'enhanced', query: input.query, total: results.length, appliedFilters: applied };
    });
  }

  // Documents near the top hits (by the mean of their passage vectors), not already in the results.
  async #similar(
    auth: AuthContext,
    results: SearchHit[],
    filters: DocumentFilters,
    minScore: number,
    q: string,
  ): Promise<SearchHit[]> {
    const set = await this.#search.vectorSetOrNull(auth);
    // Over the memory budget (docs/search.md, "Memory"): no vectors, no similar documents.
    if (!set) return [];
    const seen = new Set(results.map((r) => r.document.id));
    const ranked: { id: string; score: number; chunkIndex?: number; textFound: boolean; similarTo: string }[] = [];
    for (const hit of results.slice(0, SIMILAR_SOURCES)) {
      const centroid = set.centroid(hit.document.id);
      if (!centroid) continue;
      const near = await this.#search.nearest(
        auth,
        centroid,
        filters,
        SIMILAR_PER_SOURCE,
        new Set([...seen, hit.document.id]),
      );
      for (const [id, n] of near) {
        if (seen.has(id)) continue;
        seen.add(id);
        ranked.push({
          id,
          score: n.score,
          ...(n.chunkIndex !== undefined ? { chunkIndex: n.chunkIndex } : {}),
          textFound: false,
          similarTo: hit.document.id,
        });
      }
    }
    return this.#search.present(auth, q, filters, ranked, minScore, ranked.length);
  }
}
