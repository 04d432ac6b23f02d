import { standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import type { EnhancedSearch } from './enhanced-search.ts';
import { presentAnswer } from './search.presenter.ts';
import { EnhancedBody, HybridBody, SearchQuery, SearchResponse } from './search.schemas.ts';
import type { SearchService } from './search.service.ts';
import { hybridWeights, parseFilters, requestedFilters } from './search-input.ts';

const tags = ['search'];
const errorsWithCredits = { ...standardErrors, 402: standardErrors[400] };

/** Spec: Endpoints > Search; docs/api-decisions.md §5 and §7; docs/search.md. */
export function searchRoutes(app: App, s: { search: SearchService; enhanced: EnhancedSearch }): void {
  app.get(
    '/search',
    {
      config: { rateLimit: 'search' },
      schema: {
        tags,
        summary: 'Search documents by keyword or meaning',
        description:
          'Keyword search (free): BM25 / full-text rank over the extracted text. Semantic search (0.5 AI credits): exact cosine over passage embeddings. `auto` picks keyword under 10 characters. `highlight` is HTML-escaped with `<mark>` around matched words. No hits: 200 with empty `results`.',
        querystring: SearchQuery,
        response: { 200: SearchResponse, ...errorsWithCredits },
      },
    },
    async (request) => {
      const query = request.query;
      const filters = parseFilters(
        {
          folder_id: query.folder_id,
          tag_id: query.tag_id,
          file_type: query.file_type,
          start: query.date_start,
          end: query.date_end,
        },
        { start: 'date_start', end: 'date_end' },
      );
      const answer = await s.search.search(authOf(request), {
        q: query.q ?? '',
        // `keyword` is what people call text search (the spec's own words); it is that mode.
        mode: query.mode === 'keyword' ? 'text' : (query.mode ?? 'auto'),
        filters,
        limit: query.limit ?? 20,
        minScore: query.min_score ?? 0,
      });
      return presentAnswer(answer);
    },
  );

  app.post(
    '/search/hybrid',
    {
      config: { rateLimit: 'search' },
      schema: {
        tags,
        summary: 'Hybrid search: keyword and semantic together',
        description:
          '`score = semantic_weight * semantic_score + text_weight * text_score` over the union of both arms, each document scored on both; `matched` names the arms that found it. 0.5 AI credits, every tier.',
        body: HybridBody,
        response: { 200: SearchResponse, ...errorsWithCredits },
      },
    },
    async (request) => {
      const body = request.body;
      const f = body.filters ?? {};
      const filters = parseFilters(
        {
          folder_id: f.folder_id,
          tag_id: f.tag_id,
          file_type: f.file_type,
          start: f.date_range?.start,
          end: f.date_range?.end,
        },
        { start: 'filters.date_range.start', end: 'filters.date_range.end' },
      );
      const answer = await s.search.hybrid(authOf(request), {
        query: body.query,
        ...hybridWeights(body.semantic_weight, body.text_weight),
        limit: body.limit ?? 20,
        filters,
        minScore: body.min_score ?? 0,
      });
      return presentAnswer(answer);
    },
  );

  app.post(
    '/search/enhanced',
    {
      config: { rateLimit: 'ai_processing' },
      schema: {
        tags,
        summary: 'Enhanced search with query understanding (Pro tier and above)',
        description:
          'Dates ("from March 2026", "in 2025"), file types ("pdf", "spreadsheets") and existing tag names written in the query become filters, listed in `applied_filters`; the rest is searched hybrid. `include_similar` adds documents similar to the top hits (`similar_to`). 1 AI credit.',
        body: EnhancedBody,
        response: { 200: SearchResponse, ...errorsWithCredits },
      },
    },
    async (request) => {
      const body = request.body;
      const f = body.filters ?? {};
      const filters = parseFilters(
        { folder_id: f.folder_id, start: f.date_range?.start, end: f.date_range?.end },
        { start: 'filters.date_range.start', end: 'filters.date_range.end' },
      );
      if (f.tags?.length) filters.tagNames = f.tags;
      if (f.ai_categories?.length) filters.aiCategories = f.ai_categories;
      const answer = await s.enhanced.run(authOf(request), {
        query: body.query,
        limit: body.limit ?? 20,
        minScore: body.min_score ?? 0,
        includeSimilar: body.include_similar ?? false,
        filters,
        requested: requestedFilters(filters),
      });
      return presentAnswer(answer);
    },
  );
}
