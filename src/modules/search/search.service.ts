import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { errors } from '../../lib/errors.ts';
import type { AiProvider } from '../../providers/ai/ai-provider.ts';
import type { WordVectors } from '../../providers/ai/local/word-vectors.ts';
import type { CreditReason, CreditsService } from '../credits/index.ts';
import { type DocumentFilters, type DocumentQueries, type DocumentSummary, isUnfiltered } from '../documents/index.ts';
import type { PassageStore } from '../processing/index.ts';
import { highlightPassage } from './highlight.ts';
import type { KeywordEngine } from './keyword-engine.ts';
import type { LexicalHit, LexicalIndex } from './lexical-index.ts';
import { conceptsOf, type SoftMatching } from './lexical-query.ts';
import { type Clause, parseQuery, STOP_WORDS } from './query-syntax.ts';
import { cosineScore, keywordScore } from './scores.ts';
import type { SearchRepository } from './search.repository.ts';
import { OverBudgetError, type TenantCache } from './tenant-cache.ts';
import { lexicalSource, type SnapshotPolicy, vectorSource } from './tenant-sources.ts';
import type { ScanPool } from './vector-scan-pool.ts';
import type { VectorSet } from './vector-set.ts';

export type SearchMode = 'text' | 'semantic' | 'auto';
export type Arm = 'text' | 'semantic';

/** Queries shorter than this (in characters, trimmed) run as keyword search in `auto` mode (spec rule 1). */
export const AUTO_SEMANTIC_MIN_CHARS = 10;
/** How many candidates each arm of a hybrid or semantic search contributes, at least. */
const CANDIDATE_DEPTH = 50;

/**
 * The knobs of keyword and semantic scoring (docs/search.md; configurable, chosen on the `tune`
 * split of the labelled corpus, bench/search-quality.bench.ts).
 */
export interface SearchTuning {
  /** BM25 term-frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /** Soft matching: a neighbour word needs this cosine to the query word; it counts cos^power; at most `softNeighbours` per word. */
  softThreshold: number;
  softPower: number;
  softNeighbours: number;
  /** Semantic score = (1 − vectorWeight) × soft keyword score + vectorWeight × best passage cosine. */
  vectorWeight: number;
  /** A semantic find holding none of the query's words exactly needs this score. */
  semanticFloor: number;
  /** Apply the coordination factor to the soft keyword score as well (lexical-index.ts). */
  softCoordination: boolean;
}

/** One search result before presentation. */
export interface SearchHit {
  document: DocumentSummary;
  score: number;
  highlight: string;
  matched?: Arm[];
  similarTo?: string;
}

export interface SearchAnswer {
  results: SearchHit[];
  mode: string;
  query: string;
  total: number;
}

/** One arm's find: its score in [0, 1]; `exact` when it holds a query word as written (stemmed); for vectors, the best passage. */
interface ArmHit {
  score: number;
  exact?: boolean;
  chunkIndex?: number;
}

export interface SearchDeps {
  database: Database;
  documents: DocumentQueries;
  passages: PassageStore;
  ai: AiProvider;
  credits: CreditsService;
  /** The database's full-text index: phrase checks, highlights, and queries of stop words only. */
  keyword: KeywordEngine;
  repository: SearchRepository;
  cache: TenantCache;
  pool: ScanPool;
  tuning: SearchTuning;
  /** The word vectors when loaded (soft matching waits for nothing: without them, keyword scoring is exact). */
  wordVectors: () => WordVectors | null;
  /** When the keyword index is snapshotted for fast cold loads (tenant-sources.ts). */
  snapshots: SnapshotPolicy;
  /** True while the process is still reading its word vectors: the local provider's query vectors need them, so semantic search skips vectors meanwhile. */
  wordVectorsLoading: () => boolean;
}

/**
 * Keyword, semantic and hybrid search over what the caller may see (docs/search.md). Keyword
 * scoring runs over the tenant's own in-memory index (its own statistics); semantic adds soft
 * matching through word vectors and the passage vectors' cosine, so that a document the keyword
 * search ranks first is never lost. Visibility and filters are applied inside each arm, before its
 * top-k; result rows are re-read with the same conditions, so a document deleted or hidden a moment
 * ago never shows.
 */
export class SearchService {
  readonly deps: SearchDeps;
  constructor(deps: SearchDeps) {
    this.deps = deps;
    this.#lexicalSource = lexicalSource(deps.repository, deps.documents, deps.snapshots);
  }

  /** `GET /search`: keyword, semantic, or by query length. Semantic costs 0.5 credits, charged on success. */
  async search(
    auth: AuthContext,
    input: { q: string; mode: SearchMode; filters: DocumentFilters; limit: number; minScore: number },
  ): Promise<SearchAnswer> {
    return this.deps.cache.scoped(() => this.#search(auth, input));
  }

  async #search(
    auth: AuthContext,
    input: { q: string; mode: SearchMode; filters: DocumentFilters; limit: number; minScore: number },
  ): Promise<SearchAnswer> {
    const q = requireQuery(input.q);
    const mode: Arm =
      input.mode === 'auto' ? ([...q].length < AUTO_SEMANTIC_MIN_CHARS ? 'text' : 'semantic') : input.mode;
    if (mode === 'text') {
      const hits = await this.textArm(auth, parseQuery(q), input.filters, input.limit);
      const results = await this.present(auth, q, input.filters, candidates(hits), input.minScore, input.limit);
      return { results, mode, query: input.q, total: results.length };
    }
    return this.charged(auth, 'semantic_search', async () => {
      const ranked = await this.semanticRanking(auth, q, input.filters, Math.max(CANDIDATE_DEPTH, input.limit));
      const results = await this.present(auth, q, input.filters, ranked, input.minScore, input.limit);
      return { results, mode, query: input.q, total: results.length };
    });
  }

  /**
   * The documents a question across many should be answered from (chat over a folder or the
   * tenant), best first: the semantic ranking (soft keywords and passage vectors) within what the
   * caller may see under `filters`, read at the moment of asking. `vector` is the question's
   * embedding when the caller has it (null: keywords only). Free: the question is what is charged.
   */
  async documentsFor(
    auth: AuthContext,
    question: string,
    filters: DocumentFilters,
    limit: number,
    vector: Float32Array | null,
  ): Promise<{ id: string; score: number }[]> {
    const usable = vector?.some((x) => x !== 0) ? vector : null;
    const ranked = await this.deps.cache.scoped(() =>
      this.semanticRanking(auth, requireQuery(question), filters, Math.max(CANDIDATE_DEPTH, limit), undefined, usable),
    );
    return ranked.slice(0, limit).map((r) => ({ id: r.id, score: r.score }));
  }

  /** `POST /search/hybrid`: both arms, `semantic_weight * semantic + text_weight * text` over their union. */
  async hybrid(
    auth: AuthContext,
    input: {
      query: string;
      semanticWeight: number;
      textWeight: number;
      limit: number;
      filters: DocumentFilters;
      minScore: number;
    },
  ): Promise<SearchAnswer> {
    const q = requireQuery(input.query);
    return this.charged(auth, 'hybrid_search', async () => {
      const results = await this.hybridResults(auth, q, input);
      return { results, mode: 'hybrid', query: input.query, total: results.length };
    });
  }

  /**
   * The hybrid ranking (shared with enhanced search): the semantic ranking (which scores every
   * candidate on keywords, softly, and vectors) and the exact keyword score of each of its
   * candidates and of the keyword arm's own finds, weighted.
   */
  async hybridResults(
    auth: AuthContext,
    q: string,
    input: { semanticWeight: number; textWeight: number; limit: number; filters: DocumentFilters; minScore: number },
  ): Promise<SearchHit[]> {
    const depth = Math.max(CANDIDATE_DEPTH, input.limit * 2);
    const clauses = parseQuery(q);
    // The query is embedded once: the second semantic pass below scores other documents with the same vector.
    let vector: Float32Array | null = null;
    const [text, semantic] = await Promise.all([
      this.textArm(auth, clauses, input.filters, depth, 'any'),
      this.queryVector(q).then((v) => {
        vector = v;
        return this.semanticRanking(auth, q, input.filters, depth, undefined, v);
      }),
    ]);
    const semanticById = new Map(semantic.map((s) => [s.id, s]));
    const semanticFound = new Set(semanticById.keys());
    const union = new Set([...text.keys(), ...semanticById.keys()]);
    const missingText = [...union].filter((id) => !text.has(id));
    const textScores = new Map(text);
    if (missingText.length > 0)
      for (const [id, hit] of await this.textArm(auth, clauses, input.filters, missingText.length, 'any', missingText))
        textScores.set(id, hit);
    const missingSemantic = [...union].filter((id) => !semanticById.has(id));
    const extra =
      missingSemantic.length > 0
        ? await this.semanticRanking(auth, q, input.filters, missingSemantic.length, missingSemantic, vector)
        : [];
    for (const s of extra) semanticById.set(s.id, s);
    const ranked = [...union].map((id) => {
      const t = textScores.get(id);
      const s = semanticById.get(id);
      const matched: Arm[] = [];
      if (text.has(id)) matched.push('text');
      if (semanticFound.has(id)) matched.push('semantic');
      return {
        id,
        score: input.semanticWeight * (s?.score ?? 0) + input.textWeight * (t?.score ?? 0),
        chunkIndex: s?.chunkIndex,
        textFound: t?.exact === true,
        matched,
      };
    });
    return this.present(auth, q, input.filters, ranked, input.minScore, input.limit);
  }

  /**
   * Keyword hits by document: exact terms only, over the tenant's own statistics. `all` (the
   * default) keeps the documents holding every clause, falling back to any clause when none does.
   */
  async textArm(
    auth: AuthContext,
    clauses: Clause[],
    filters: DocumentFilters,
    limit: number,
    join: 'all' | 'any' = 'all',
    only?: string[],
  ): Promise<Map<string, ArmHit>> {
    const out = new Map<string, ArmHit>();
    if (clauses.length === 0) return out;
    if (clauses.every((c) => c.kind === 'word' && STOP_WORDS.has(c.text)))
      return this.#stopWordArm(auth, clauses, filters, limit, only);
    const index = await this.lexicalIndex(auth);
    let hits = await this.#scoreLexical(auth, index, clauses, filters, { limit, join, soft: false, only });
    if (hits.length === 0 && join === 'all' && clauses.length > 1)
      hits = await this.#scoreLexical(auth, index, clauses, filters, { limit, join: 'any', soft: false, only });
    for (const h of hits) out.set(index.documentOf(h.slot)!, { score: h.score, exact: true });
    return out;
  }

  /**
   * The semantic ranking, best first: keyword candidates scored with soft matching (a query word
   * also counts its neighbours in the word vectors) and the passage-vector candidates, each scored
   * on both, `(1 − w) × soft keyword + w × best cosine`, and never below the document's keyword
   * score (exact terms). A document holding a query word exactly is
   * always kept (so a keyword search's first find is never lost); others need the semantic floor.
   * `only`: score just these documents. `queryVector`: the query's embedding when the caller has it
   * (`queryVector(q)`'s answer, null included); embedded here otherwise.
   */
  async semanticRanking(
    auth: AuthContext,
    q: string,
    filters: DocumentFilters,
    depth: number,
    only?: string[],
    queryVector?: Float32Array | null,
  ): Promise<{ id: string; score: number; chunkIndex?: number; textFound: boolean }[]> {
    const { tuning } = this.deps;
    const clauses = parseQuery(q);
    let vector = queryVector === undefined ? await this.queryVector(q) : queryVector;
    // A tenant whose vectors do not fit this process's memory is ranked without them (the keyword part is then the whole score).
    if (vector && !(await this.vectorSetOrNull(auth))) vector = null;
    const scan = vector && !only ? await this.startNearest(auth, vector, filters, depth) : null;
    const lexical = new Map<string, LexicalHit>();
    if (clauses.length > 0) {
      const index = await this.lexicalIndex(auth);
      for (const h of await this.#scoreLexical(auth, index, clauses, filters, {
        limit: depth,
        join: 'any',
        soft: true,
        only,
      }))
        lexical.set(index.documentOf(h.slot)!, h);
      const nearest = scan ? await scan.result : new Map<string, ArmHit>();
      const missing = [...nearest.keys()].filter((id) => !lexical.has(id));
      if (missing.length > 0) {
        for (const h of await this.#scoreLexical(auth, index, clauses, filters, {
          limit: missing.length,
          join: 'any',
          soft: true,
          only: missing,
        })) {
          lexical.set(index.documentOf(h.slot)!, h);
        }
      }
      return this.#combine(auth, lexical, nearest, vector, only, tuning);
    }
    return this.#combine(auth, lexical, scan ? await scan.result : new Map(), vector, only, tuning);
  }

  async #combine(
    auth: AuthContext,
    lexical: Map<string, LexicalHit>,
    nearest: Map<string, ArmHit>,
    vector: Float32Array | null,
    only: string[] | undefined,
    tuning: SearchTuning,
  ): Promise<{ id: string; score: number; chunkIndex?: number; textFound: boolean }[]> {
    const cosines = new Map(nearest);
    const ids = new Set([...lexical.keys(), ...nearest.keys(), ...(only ?? [])]);
    const set = vector ? await this.vectorSetOrNull(auth) : null;
    if (vector && set) {
      for (const id of ids) {
        if (cosines.has(id)) continue;
        const best = set.bestCosine(id, vector);
        if (best) cosines.set(id, { score: cosineScore(best.score), chunkIndex: best.chunkIndex });
      }
    }
    // Without a query vector (nothing to embed, or the word vectors still loading) the keyword part is the whole score.
    const w = vector ? tuning.vectorWeight : 0;
    const out: { id: string; score: number; chunkIndex?: number; textFound: boolean }[] = [];
    for (const id of ids) {
      const lex = lexical.get(id);
      const cos = cosines.get(id);
      // A document holding the query's words scores at least what keyword search gives it: exact
      // terms keep their weight (and their relevance label) whatever the passage cosine.
      const score = Math.max((1 - w) * (lex?.score ?? 0) + w * (cos?.score ?? 0), lex?.keyword ?? 0);
      const exact = (lex?.exactConcepts ?? 0) > 0;
      if (!only && !exact && score < tuning.semanticFloor) continue;
      if (score <= 0) continue;
      out.push({
        id,
        score,
        ...(cos?.chunkIndex !== undefined ? { chunkIndex: cos.chunkIndex } : {}),
        textFound: exact,
      });
    }
    return out.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  }

  /** The caller's tenant's keyword index, up to date. */
  lexicalIndex(auth: AuthContext): Promise<LexicalIndex> {
    return this.deps.cache.get(this.deps.database.db, auth.tenant.id, this.#lexicalSource);
  }
  readonly #lexicalSource: ReturnType<typeof lexicalSource>;

  async #scoreLexical(
    auth: AuthContext,
    index: LexicalIndex,
    clauses: Clause[],
    filters: DocumentFilters,
    options: { limit: number; join: 'all' | 'any'; soft: boolean; only?: string[] | undefined },
  ): Promise<LexicalHit[]> {
    const { database, documents, keyword, tuning } = this.deps;
    const everything = isUnfiltered(filters) && documents.seesAll(auth);
    const mask = everything ? null : index.mask(await documents.ids(database.db, auth, filters));
    const phrases = new Map<number, Uint8Array>();
    for (const [position, clause] of clauses.entries()) {
      if (clause.kind === 'phrase')
        phrases.set(position, index.mask(await keyword.matching(database.db, auth.tenant.id, clause)));
    }
    const vectors = options.soft ? this.deps.wordVectors() : null;
    const soft: SoftMatching | null = vectors
      ? { vectors, threshold: tuning.softThreshold, power: tuning.softPower, neighbours: tuning.softNeighbours }
      : null;
    const only = options.only
      ? new Set(options.only.map((id) => index.slotOf(id)).filter((s): s is number => s !== undefined))
      : null;
    if (only && only.size === 0) return [];
    const coordination = options.soft ? tuning.softCoordination : true;
    return index.score(conceptsOf(index, clauses, soft, phrases), {
      k1: tuning.k1,
      b: tuning.b,
      mask,
      join: options.join,
      limit: options.limit,
      only,
      coordination,
    });
  }

  // A query of stop words only: the database's full-text index has them (the in-memory index leaves them out).
  async #stopWordArm(
    auth: AuthContext,
    clauses: Clause[],
    filters: DocumentFilters,
    limit: number,
    only?: string[],
  ): Promise<Map<string, ArmHit>> {
    const { keyword, database, documents } = this.deps;
    const out = new Map<string, ArmHit>();
    const base = {
      tenantId: auth.tenant.id,
      clauses,
      document: documents.matching(auth, filters),
      limit,
      ...(only ? { onlyDocumentIds: only } : {}),
    };
    let hits = await keyword.search(database.db, { ...base, join: 'all' });
    if (hits.length === 0 && clauses.length > 1) hits = await keyword.search(database.db, { ...base, join: 'any' });
    for (const h of hits) out.set(h.documentId, { score: keywordScore(h.rank, keyword.half), exact: true });
    return out;
  }

  /** The documents whose passages are nearest a vector, within what the caller may see. */
  async nearest(
    auth: AuthContext,
    vector: Float32Array,
    filters: DocumentFilters,
    limit: number,
    exclude?: Set<string>,
  ): Promise<Map<string, ArmHit>> {
    return (await this.startNearest(auth, vector, filters, limit, exclude)).result;
  }

  /** `nearest` up to handing the scan to the threads: resolves once they work, with the promise of their answer. */
  async startNearest(
    auth: AuthContext,
    vector: Float32Array,
    filters: DocumentFilters,
    limit: number,
    exclude?: Set<string>,
  ): Promise<{ result: Promise<Map<string, ArmHit>> }> {
    const { database, documents, pool } = this.deps;
    const set = await this.vectorSetOrNull(auth);
    if (!set) return { result: Promise.resolve(new Map()) };
    // Everything the caller may see (tenant admins, no filters) needs no mask; otherwise the allowed set is read first.
    const everything = isUnfiltered(filters) && !exclude && documents.seesAll(auth);
    const allowed = everything ? null : await documents.ids(database.db, auth, filters);
    const mask = allowed === null ? null : set.mask(exclude ? allowed.filter((id) => !exclude.has(id)) : allowed);
    const snapshot = set.snapshot();
    const result = pool.scan(snapshot.target, vector, mask, limit).then((found) => {
      const out = new Map<string, ArmHit>();
      for (let i = 0; i < found.docs.length; i++) {
        const id = snapshot.documentOf(found.docs[i]!);
        const score = cosineScore(found.scores[i]!);
        if (id !== undefined && score > 0) out.set(id, { score, chunkIndex: snapshot.chunkOf(found.rows[i]!) });
      }
      return out;
    });
    return { result };
  }

  /** The vectors of the caller's tenant for the current model, up to date. */
  async vectorSet(auth: AuthContext): Promise<VectorSet> {
    const { database, cache, ai, passages } = this.deps;
    const model = `${ai.embeddingModel}:${ai.embeddingDimensions}`;
    if (this.#vectorSource?.key !== `vectors:${model}`)
      this.#vectorSource = vectorSource(passages, model, ai.embeddingDimensions, cache.budgetBytes);
    return cache.get(database.db, auth.tenant.id, this.#vectorSource);
  }

  /** `vectorSet`, or null when the tenant's vectors do not fit this process's memory budget (logged by the cache). */
  async vectorSetOrNull(auth: AuthContext): Promise<VectorSet | null> {
    try {
      return await this.vectorSet(auth);
    } catch (error) {
      if (error instanceof OverBudgetError) return null;
      throw error;
    }
  }
  #vectorSource: ReturnType<typeof vectorSource> | undefined;

  /**
   * Runs a priced search: credits checked first (402 before any work), charged only when it
   * succeeded (a search writes nothing else: `chargeAlone`, one statement on PostgreSQL).
   */
  async charged<T>(auth: AuthContext, reason: CreditReason, work: () => Promise<T>): Promise<T> {
    const { credits, cache } = this.deps;
    await credits.assertAvailable(auth.tenant, reason);
    const answer = await cache.scoped(work);
    await credits.chargeAlone(auth.tenant, reason);
    return answer;
  }

  /** Ranked candidates to results: min score, rows re-read under visibility and filters, highlights. */
  async present(
    auth: AuthContext,
    q: string,
    filters: DocumentFilters,
    ranked: {
      id: string;
      score: number;
      chunkIndex?: number | undefined;
      textFound: boolean;
      matched?: Arm[];
      similarTo?: string;
    }[],
    minScore: number,
    limit: number,
  ): Promise<SearchHit[]> {
    const { database, documents, passages, keyword } = this.deps;
    const top = ranked
      .filter((r) => r.score > 0 && r.score >= minScore)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, limit);
    if (top.length === 0) return [];
    const tenantId = auth.tenant.id;
    const clauses = parseQuery(q);
    const textIds = top.filter((r) => r.textFound).map((r) => r.id);
    // The rows and the highlights are independent reads: both at once (on PostgreSQL, separate connections).
    const [rows, snippets] = await Promise.all([
      documents.summaries(
        database.db,
        auth,
        top.map((r) => r.id),
        filters,
      ),
      (async () => {
        const found = new Map(await keyword.highlights(database.db, tenantId, clauses, 'all', textIds));
        const missing = textIds.filter((id) => !found.has(id));
        if (missing.length > 0)
          for (const [id, s] of await keyword.highlights(database.db, tenantId, clauses, 'any', missing))
            found.set(id, s);
        return found;
      })(),
    ]);
    const wanted = top
      .filter((r) => !snippets.has(r.id) && r.chunkIndex !== undefined)
      .map((r) => ({ documentId: r.id, chunkIndex: r.chunkIndex! }));
    const texts = new Map<string, string>();
    for (const p of await passages.texts(database.db, tenantId, wanted))
      texts.set(`${p.documentId}:${p.chunkIndex}`, p.text);
    const out: SearchHit[] = [];
    for (const r of top) {
      const document = rows.get(r.id);
      if (!document) continue;
      const passage = r.chunkIndex !== undefined ? texts.get(`${r.id}:${r.chunkIndex}`) : undefined;
      const highlight = snippets.get(r.id) ?? (passage !== undefined ? highlightPassage(passage, q) : '');
      out.push({
        document,
        score: r.score,
        highlight,
        ...(r.matched ? { matched: r.matched } : {}),
        ...(r.similarTo ? { similarTo: r.similarTo } : {}),
      });
    }
    return out;
  }

  /** The query's embedding, or null when it has nothing to embed. */
  async queryVector(q: string): Promise<Float32Array | null> {
    if (this.deps.ai.name === 'local' && this.deps.wordVectorsLoading()) return null;
    const [vector] = await this.deps.ai.embed([q], { purpose: 'query' });
    if (!vector?.some((x) => x !== 0)) return null;
    return vector;
  }
}

/** The query, trimmed; 400 `invalid_query` when there is nothing. */
export function requireQuery(q: string | undefined): string {
  const trimmed = (q ?? '').trim();
  if (trimmed === '') throw errors.invalidQuery();
  return trimmed;
}

/** Keyword hits as ranked candidates. */
function candidates(hits: Map<string, ArmHit>): { id: string; score: number; textFound: boolean }[] {
  return [...hits].map(([id, hit]) => ({ id, score: hit.score, textFound: true }));
}
