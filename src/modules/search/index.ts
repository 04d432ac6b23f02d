import { availableParallelism } from 'node:os';
import type { AuthContext } from '../../domain/auth-context.ts';
import { defineModule } from '../../platform/module.ts';
import { EnhancedSearch } from './enhanced-search.ts';
import { PostgresKeywordEngine } from './postgres-keyword.ts';
import { presentAnswer } from './search.presenter.ts';
import { SearchRepository } from './search.repository.ts';
import { searchRoutes } from './search.routes.ts';
import { type SearchMode, SearchService } from './search.service.ts';
import { SqliteKeywordEngine } from './sqlite-keyword.ts';
import { VectorCache } from './vector-cache.ts';
import { ScanPool } from './vector-scan-pool.ts';

/** `GET /search` for other modules (the MCP server's `search` tool): the same answer, the same credits. */
export type SearchFunction = (auth: AuthContext, query: { q: string; mode?: SearchMode; limit?: number }) => Promise<unknown>;

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Keyword, semantic or auto search as `GET /search` answers it. */
    search: SearchFunction;
  }
}

/**
 * Search (docs/search.md): keyword (FTS5 / tsvector), semantic (exact cosine over passage vectors
 * held in memory per tenant), hybrid and enhanced search, over what the caller may see.
 */
export const searchModule = defineModule({
  name: 'search',
  setup({ database, clock, use }) {
    const documents = use('documentQueries');
    const passages = use('passages');
    const pool = new ScanPool(Math.min(2, Math.max(1, availableParallelism())));
    const service = new SearchService({
      database,
      documents,
      passages,
      ai: use('ai'),
      credits: use('credits'),
      keyword: database.dialect === 'postgres' ? new PostgresKeywordEngine(documents) : new SqliteKeywordEngine(),
      vectors: new VectorCache({ repository: new SearchRepository(), passages }),
      pool,
    });
    const enhanced = new EnhancedSearch({ search: service, clock });
    const search: SearchFunction = async (auth, query) => {
      return presentAnswer(await service.search(auth, { q: query.q, mode: query.mode ?? 'auto', filters: {}, limit: query.limit ?? 20, minScore: 0 }));
    };
    return {
      provides: { search },
      routes: (app) => searchRoutes(app, { search: service, enhanced }),
      capabilities: () => ({
        search_keyword: database.dialect === 'postgres' ? 'postgres tsvector + GIN (ts_rank_cd)' : 'sqlite fts5 (bm25)',
        search_vectors: 'exact cosine, in-memory per tenant',
      }),
      async close() {
        await pool.close();
      },
    };
  },
});
