import { availableParallelism } from 'node:os';
import type { AuthContext } from '../../domain/auth-context.ts';
import { defineModule } from '../../platform/module.ts';
import { loadWordVectors, wordVectorStatus, wordVectorsNow } from '../../providers/ai/local/word-vectors.ts';
import { EnhancedSearch } from './enhanced-search.ts';
import { PostgresKeywordEngine } from './postgres-keyword.ts';
import { presentAnswer } from './search.presenter.ts';
import { SearchRepository } from './search.repository.ts';
import { searchRoutes } from './search.routes.ts';
import { type SearchMode, SearchService } from './search.service.ts';
import { SqliteKeywordEngine } from './sqlite-keyword.ts';
import { TenantCache } from './tenant-cache.ts';
import { DEFAULT_SNAPSHOT_POLICY } from './tenant-sources.ts';
import { ScanPool } from './vector-scan-pool.ts';

/** `GET /search` for other modules (the MCP server's `search` tool): the same answer, the same credits. */
export type SearchFunction = (
  auth: AuthContext,
  query: { q: string; mode?: SearchMode; limit?: number },
) => Promise<unknown>;

/** The retrieval of semantic search for chat across a folder or the tenant (SearchService.documentsFor). */
export type DocumentRetrieval = Pick<SearchService, 'documentsFor'>;

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Keyword, semantic or auto search as `GET /search` answers it. */
    search: SearchFunction;
    /** Which documents a question across many should read, within what the caller may see. */
    documentRetrieval: DocumentRetrieval;
  }
}

/** What the search indexes hold in this process, against SEARCH_MEMORY_MB (docs/search.md, "Memory"). */
function searchMemory(cache: TenantCache) {
  const { heldBytes, overBudget } = cache.usage();
  return {
    budget_mb: Math.round(cache.budgetBytes / 2 ** 20),
    held_mb: Math.round(heldBytes / 2 ** 20),
    tenants_over_budget: overBudget,
  };
}

/**
 * Search (docs/search.md): keyword (FTS5 / tsvector), semantic (exact cosine over passage vectors
 * held in memory per tenant), hybrid and enhanced search, over what the caller may see.
 *
 * Its index is written by database triggers, not by this code: `search_contents_*` on
 * document_contents and `search_chunks_*` on document_chunks keep search_documents (FTS5 /
 * tsvector) and the vector change log in step, in the transaction of each change. Read them in
 * src/db/schema.sqlite.sql and src/db/schema.postgres.sql (generated from the migrations).
 */
export const searchModule = defineModule({
  name: 'search',
  setup({ config, database, clock, logger, use }) {
    const documents = use('documentQueries');
    const passages = use('passages');
    const ai = use('ai');
    const pool = new ScanPool(Math.min(2, Math.max(1, availableParallelism())));
    const repository = new SearchRepository();
    const { memoryMb, ...tuning } = config.search;
    const cache = new TenantCache(repository, {
      budgetBytes: memoryMb * 2 ** 20,
      onOverBudget: (error) => logger.warn({ tenantId: error.tenantId }, error.message),
    });
    const service = new SearchService({
      database,
      documents,
      passages,
      ai,
      credits: use('credits'),
      keyword: database.dialect === 'postgres' ? new PostgresKeywordEngine(documents) : new SqliteKeywordEngine(),
      repository,
      cache,
      pool,
      tuning: { k1: 1.2, b: 0.75, ...tuning },
      snapshots: {
        ...DEFAULT_SNAPSHOT_POLICY,
        onError: (error) => logger.warn({ err: error }, 'search: the keyword index snapshot was not saved'),
      },
      wordVectors: wordVectorsNow,
      wordVectorsLoading: () => wordVectorStatus().state === 'loading',
    });
    const enhanced = new EnhancedSearch({ search: service, clock });
    const search: SearchFunction = async (auth, query) => {
      return presentAnswer(
        await service.search(auth, {
          q: query.q,
          mode: query.mode ?? 'auto',
          filters: {},
          limit: query.limit ?? 20,
          minScore: 0,
        }),
      );
    };
    return {
      provides: { search, documentRetrieval: service },
      routes: (app) => {
        searchRoutes(app, { search: service, enhanced });
        // The API process reads the word vectors once it listens (never on the way to listening: a
        // decode on the main thread before the port is bound delayed /healthz): until they are
        // ready, keyword scoring is exact and semantic search uses no soft matching. An app that
        // never listens (app.inject in tests and benches) reads them shortly after it is ready.
        app.addHook('onListen', async () => {
          setImmediate(() => void loadWordVectors());
        });
        app.addHook('onReady', async () => {
          setTimeout(() => void loadWordVectors(), 250).unref();
        });
      },
      capabilities: () => ({
        search_keyword:
          'BM25 per tenant over an in-memory index (phrases checked by ' +
          (database.dialect === 'postgres' ? 'postgres tsvector)' : 'sqlite fts5)'),
        search_vectors: 'exact cosine, in-memory per tenant',
        word_vectors: wordVectorStatus(),
        search_memory: searchMemory(cache),
      }),
      async close() {
        await pool.close();
      },
    };
  },
});
