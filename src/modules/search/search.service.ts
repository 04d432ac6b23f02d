import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { errors } from '../../lib/errors.ts';
import type { AiProvider } from '../../providers/ai/ai-provider.ts';
import type { CreditReason, CreditsService } from '../credits/index.ts';
import { type DocumentFilters, type DocumentQueries, type DocumentSummary, isUnfiltered } from '../documents/index.ts';
import type { PassageStore } from '../processing/index.ts';
import { highlightPassage } from './highlight.ts';
import type { KeywordEngine } from './keyword-engine.ts';
import { type Clause, parseQuery } from './query-syntax.ts';
import { cosineScore, keywordScore } from './scores.ts';
import type { VectorCache } from './vector-cache.ts';
import type { ScanPool } from './vector-scan-pool.ts';

export type SearchMode = 'text' | 'semantic' | 'auto';
export type Arm = 'text' | 'semantic';

/** Queries shorter than this (in characters, trimmed) run as keyword search in `auto` mode (spec rule 1). */
export const AUTO_SEMANTIC_MIN_CHARS = 10;
/**
 * A passage whose cosine with the query is below this is not a semantic match: unrelated texts
 * score up to ~0.19 with the local hashed embeddings (measured on test/fixtures/search), related ones 0.25–0.6.
 */
export const SEMANTIC_FLOOR = 0.2;
/** How many candidates each arm of a hybrid search contributes, at least. */
const HYBRID_DEPTH = 50;

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

/** One arm's find: its score in [0, 1] and, for semantic, the best passage. */
interface ArmHit {
  score: number;
  chunkIndex?: number;
}

export interface SearchDeps {
  database: Database;
  documents: DocumentQueries;
  passages: PassageStore;
  ai: AiProvider;
  credits: CreditsService;
  keyword: KeywordEngine;
  vectors: VectorCache;
  pool: ScanPool;
}

/**
 * Keyword, semantic and hybrid search over what the caller may see (docs/search.md). Visibility and
 * filters are applied inside each arm, before its top-k; result rows are re-read with the same
 * conditions, so a document deleted or hidden a moment ago never shows.
 */
export class SearchService {
  readonly deps: SearchDeps;
  constructor(deps: SearchDeps) {
    this.deps = deps;
  }

  /** `GET /search`: keyword, semantic, or by query length. Semantic costs 0.5 credits, charged on success. */
  async search(auth: AuthContext, input: { q: string; mode: SearchMode; filters: DocumentFilters; limit: number; minScore: number }): Promise<SearchAnswer> {
    const q = requireQuery(input.q);
    const mode: Arm = input.mode === 'auto' ? ([...q].length < AUTO_SEMANTIC_MIN_CHARS ? 'text' : 'semantic') : input.mode;
    if (mode === 'text') {
      const hits = await this.textArm(auth, parseQuery(q), input.filters, input.limit);
      const results = await this.present(auth, q, input.filters, candidates(hits, true), input.minScore, input.limit);
      return { results, mode, query: input.q, total: results.length };
    }
    return this.charged(auth, 'semantic_search', async () => {
      const hits = await this.semanticArm(auth, q, input.filters, input.limit);
      const results = await this.present(auth, q, input.filters, candidates(hits, false), input.minScore, input.limit);
      return { results, mode, query: input.q, total: results.length };
    });
  }

  /** `POST /search/hybrid`: both arms, `semantic_weight * semantic + text_weight * text` over their union. */
  async hybrid(
    auth: AuthContext,
    input: { query: string; semanticWeight: number; textWeight: number; limit: number; filters: DocumentFilters; minScore: number },
  ): Promise<SearchAnswer> {
    const q = requireQuery(input.query);
    return this.charged(auth, 'hybrid_search', async () => {
      const results = await this.hybridResults(auth, q, input);
      return { results, mode: 'hybrid', query: input.query, total: results.length };
    });
  }

  /** The hybrid ranking (shared with enhanced search): each arm's finds, then each found document scored on both. */
  async hybridResults(
    auth: AuthContext,
    q: string,
    input: { semanticWeight: number; textWeight: number; limit: number; filters: DocumentFilters; minScore: number },
  ): Promise<SearchHit[]> {
    const depth = Math.max(HYBRID_DEPTH, input.limit * 2);
    const clauses = parseQuery(q);
    const vector = await this.queryVector(q);
    // The scan threads start first and the keyword arm runs on this thread meanwhile (SQLite queries
    // block it: started together, the keyword query could run before the scan was even handed over).
    const scan = vector ? await this.startNearest(auth, vector, input.filters, depth) : null;
    const [text, semantic] = await Promise.all([this.textArm(auth, clauses, input.filters, depth), scan?.result ?? new Map<string, ArmHit>()]);
    // The score of a document one arm found and the other did not is still computed exactly on both.
    const union = new Set([...text.keys(), ...semantic.keys()]);
    const textScores = new Map(text);
    const missingText = [...union].filter((id) => !text.has(id));
    if (missingText.length > 0) {
      // Scored with the same query the arm ran (all clauses, or any after its fallback).
      const join = text.join ?? 'all';
      for (const [id, hit] of await this.textArm(auth, clauses, input.filters, missingText.length, { ids: missingText, join })) textScores.set(id, hit);
    }
    const semanticScores = new Map(semantic);
    const missingSemantic = [...union].filter((id) => !semantic.has(id));
    if (vector && missingSemantic.length > 0) {
      const set = await this.vectorSet(auth);
      for (const id of missingSemantic) {
        const best = set.bestCosine(id, vector);
        if (best) semanticScores.set(id, { score: cosineScore(best.score), chunkIndex: best.chunkIndex });
      }
    }
    const ranked = [...union].map((id) => {
      const t = textScores.get(id);
      const s = semanticScores.get(id);
      const matched: Arm[] = [];
      if (text.has(id)) matched.push('text');
      if (semantic.has(id)) matched.push('semantic');
      return {
        id,
        score: input.semanticWeight * (s?.score ?? 0) + input.textWeight * (t?.score ?? 0),
        chunkIndex: s?.chunkIndex,
        textFound: text.has(id),
        matched,
      };
    });
    return this.present(auth, q, input.filters, ranked, input.minScore, input.limit);
  }

  /** Keyword hits by document: all clauses first; when nothing holds them all, any of them (`join` says which ran). */
  async textArm(
    auth: AuthContext,
    clauses: Clause[],
    filters: DocumentFilters,
    limit: number,
    only?: { ids: string[]; join: 'all' | 'any' },
  ): Promise<Map<string, ArmHit> & { join?: 'all' | 'any' }> {
    const { keyword, database } = this.deps;
    const out: Map<string, ArmHit> & { join?: 'all' | 'any' } = new Map();
    if (clauses.length === 0) return out;
    const base = { tenantId: auth.tenant.id, clauses, document: this.deps.documents.matching(auth, filters), limit, ...(only ? { onlyDocumentIds: only.ids } : {}) };
    out.join = only?.join ?? 'all';
    let hits = await keyword.search(database.db, { ...base, join: out.join });
    if (!only && hits.length === 0 && clauses.length > 1) {
      out.join = 'any';
      hits = await keyword.search(database.db, { ...base, join: 'any' });
    }
    for (const h of hits) out.set(h.documentId, { score: keywordScore(h.rank, keyword.half) });
    return out;
  }

  /** Semantic hits by document: exact cosine over the allowed documents' passages, best passage each. */
  async semanticArm(auth: AuthContext, q: string, filters: DocumentFilters, limit: number, exclude?: Set<string>): Promise<Map<string, ArmHit>> {
    const vector = await this.queryVector(q);
    if (!vector) return new Map();
    return this.nearest(auth, vector, filters, limit, exclude);
  }

  /** The documents whose passages are nearest a vector, within what the caller may see. */
  async nearest(auth: AuthContext, vector: Float32Array, filters: DocumentFilters, limit: number, exclude?: Set<string>): Promise<Map<string, ArmHit>> {
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
    const set = await this.vectorSet(auth);
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
        if (id !== undefined && score >= SEMANTIC_FLOOR) out.set(id, { score, chunkIndex: snapshot.chunkOf(found.rows[i]!) });
      }
      return out;
    });
    return { result };
  }

  /** The vectors of the caller's tenant for the current model, up to date. */
  async vectorSet(auth: AuthContext) {
    const { database, vectors, ai } = this.deps;
    return vectors.get(database.db, auth.tenant.id, `${ai.embeddingModel}:${ai.embeddingDimensions}`, ai.embeddingDimensions);
  }

  /** Runs a priced search: credits checked first (402 before any work), charged in a transaction only when it succeeded. */
  async charged<T>(auth: AuthContext, reason: CreditReason, work: () => Promise<T>): Promise<T> {
    const { credits, database } = this.deps;
    await credits.assertAvailable(auth.tenant, reason);
    const answer = await work();
    await database.db.transaction().execute((trx) => credits.charge(trx, auth.tenant, reason));
    return answer;
  }

  /** Ranked candidates to results: min score, rows re-read under visibility and filters, highlights. */
  async present(
    auth: AuthContext,
    q: string,
    filters: DocumentFilters,
    ranked: { id: string; score: number; chunkIndex?: number | undefined; textFound: boolean; matched?: Arm[]; similarTo?: string }[],
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
    const rows = await documents.summaries(database.db, auth, top.map((r) => r.id), filters);
    const clauses = parseQuery(q);
    const textIds = top.filter((r) => r.textFound).map((r) => r.id);
    const snippets = new Map(await keyword.highlights(database.db, tenantId, clauses, 'all', textIds));
    const missing = textIds.filter((id) => !snippets.has(id));
    if (missing.length > 0) for (const [id, s] of await keyword.highlights(database.db, tenantId, clauses, 'any', missing)) snippets.set(id, s);
    const wanted = top.filter((r) => !snippets.has(r.id) && r.chunkIndex !== undefined).map((r) => ({ documentId: r.id, chunkIndex: r.chunkIndex! }));
    const texts = new Map<string, string>();
    for (const p of await passages.texts(database.db, tenantId, wanted)) texts.set(`${p.documentId}:${p.chunkIndex}`, p.text);
    const out: SearchHit[] = [];
    for (const r of top) {
      const document = rows.get(r.id);
      if (!document) continue;
      const passage = r.chunkIndex !== undefined ? texts.get(`${r.id}:${r.chunkIndex}`) : undefined;
      const highlight = snippets.get(r.id) ?? (passage !== undefined ? highlightPassage(passage, q) : '');
      out.push({ document, score: r.score, highlight, ...(r.matched ? { matched: r.matched } : {}), ...(r.similarTo ? { similarTo: r.similarTo } : {}) });
    }
    return out;
  }

  /** The query's embedding, or null when it has nothing to embed. */
  async queryVector(q: string): Promise<Float32Array | null> {
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

/** One arm's hits as ranked candidates. */
function candidates(hits: Map<string, ArmHit>, textFound: boolean): { id: string; score: number; chunkIndex?: number; textFound: boolean }[] {
  return [...hits].map(([id, hit]) => ({ id, score: hit.score, ...(hit.chunkIndex !== undefined ? { chunkIndex: hit.chunkIndex } : {}), textFound }));
}
