import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/common-schemas.ts';

const MinScore = Type.Optional(
  Type.Number({ minimum: 0, maximum: 1, description: 'Leave out results scoring below this (0 to 1).' }),
);
const Limit = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 20,
    description: 'At most this many results (default 20, max 100).',
  }),
);
const IsoDate = (description: string) => Type.Optional(Type.String({ maxLength: 40, description }));
const Query = Type.String({
  maxLength: 1000,
  description: 'The query; empty or blank gives 400 `INVALID_QUERY`. Syntax: docs/search.md.',
});

export const SearchQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 1000,
        description:
          'Required. Words (all must match, stemmed, diacritics folded, stop words ignored), `"exact phrases"`, `prefix*`. Empty or blank gives 400 `INVALID_QUERY`.',
      }),
    ),
    mode: Type.Optional(
      Type.Union([Type.Literal('semantic'), Type.Literal('text'), Type.Literal('auto'), Type.Literal('keyword')], {
        default: 'auto',
        description:
          '`auto`: keyword search for queries under 10 characters, semantic otherwise. `keyword` is another name for `text` (the response says `text`). Semantic costs 0.5 AI credits.',
      }),
    ),
    folder_id: Type.Optional(Type.String({ maxLength: 128, description: 'Only documents directly in this folder.' })),
    tag_id: Type.Optional(Type.String({ maxLength: 128, description: 'Only documents with this tag.' })),
    file_type: Type.Optional(
      Type.String({ maxLength: 255, description: 'A media type or an extension (`pdf`, `.docx`).' }),
    ),
    date_start: IsoDate('ISO 8601 date or date-time: documents created at or after it.'),
    date_end: IsoDate('ISO 8601 date or date-time: documents created at or before it (a date includes the whole day).'),
    limit: Limit,
    min_score: MinScore,
  },
  { additionalProperties: false },
);

const DateRange = Type.Object(
  {
    start: IsoDate('ISO 8601 date or date-time (inclusive).'),
    end: IsoDate('ISO 8601 date or date-time (inclusive; a date includes the whole day).'),
  },
  { additionalProperties: false },
);

export const HybridBody = Type.Object(
  {
    query: Query,
    semantic_weight: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'Default 0.5, or 1 − text_weight when only that is given.' }),
    ),
    text_weight: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Default 0.5, or 1 − semantic_weight when only that is given.',
      }),
    ),
    limit: Limit,
    min_score: MinScore,
    filters: Type.Optional(
      Type.Object(
        {
          folder_id: Type.Optional(Type.String({ maxLength: 128 })),
          tag_id: Type.Optional(Type.String({ maxLength: 128 })),
          file_type: Type.Optional(Type.String({ maxLength: 255 })),
          date_range: Type.Optional(DateRange),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const EnhancedBody = Type.Object(
  {
    query: Query,
    filters: Type.Optional(
      Type.Object(
        {
          date_range: Type.Optional(DateRange),
          tags: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
              maxItems: 50,
              description: 'Tag names: documents with any of them.',
            }),
          ),
          ai_categories: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
              maxItems: 50,
              description: 'Documents whose AI tags include any of these.',
            }),
          ),
          folder_id: Type.Optional(Type.String({ maxLength: 128 })),
        },
        { additionalProperties: false },
      ),
    ),
    include_similar: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Also return documents similar to the top 3 hits, marked `similar_to`.',
      }),
    ),
    min_score: MinScore,
    limit: Limit,
  },
  { additionalProperties: false },
);

export const SearchResult = Type.Object({
  document: Type.Object({
    id: Type.String(),
    filename: Type.String(),
    ai_summary: Nullable(Type.String()),
    folder_id: Nullable(Type.String()),
    created_at: Timestamp,
  }),
  score: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'Comparable across queries and modes (docs/search.md, "Scores").',
  }),
  relevance: Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low'), Type.Literal('very_low')], {
    description: 'Band of the score: high ≥ 0.8, medium ≥ 0.6, low ≥ 0.4, very_low below.',
  }),
  highlight: Type.String({
    description:
      'The best-matching passage as HTML-escaped text, matched words wrapped in `<mark>…</mark>`, `…` where it was cut. Empty when no passage text exists.',
  }),
  matched: Type.Optional(
    Type.Array(Type.Union([Type.Literal('text'), Type.Literal('semantic')]), {
      description: 'Hybrid and enhanced: the arms whose top results held this document.',
    }),
  ),
  similar_to: Type.Optional(
    Type.String({ description: 'Enhanced with include_similar: the top hit this document is similar to.' }),
  ),
});

const AppliedFilter = Type.Object({
  type: Type.Union([
    Type.Literal('date_range'),
    Type.Literal('file_type'),
    Type.Literal('tag'),
    Type.Literal('ai_category'),
    Type.Literal('folder'),
  ]),
  source: Type.Union([Type.Literal('query'), Type.Literal('request')]),
  text: Type.Optional(Type.String({ description: 'The words of the query the filter was read from.' })),
  value: Type.Unknown(),
});

export const SearchResponse = Type.Object({
  results: Type.Array(SearchResult),
  mode: Type.String({ description: 'The mode that ran: `text` or `semantic` (GET), `hybrid`, `enhanced`.' }),
  query: Type.String(),
  total: Type.Integer({ description: 'The number of results in this answer.' }),
  applied_filters: Type.Optional(
    Type.Array(AppliedFilter, {
      description: 'Enhanced search: every filter applied, from the request or read from the query.',
    }),
  ),
});
