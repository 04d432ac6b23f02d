import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { openSqlite } from './node-sqlite-adapter.ts';
import { PgPipeline, usePipeline } from './pg-pipeline.ts';
import { preparingClient } from './prepared-statements.ts';
import type { DB } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

/** The relational store: a Kysely instance plus what callers must know about its dialect. */
export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /** PostgreSQL pool, for LISTEN/NOTIFY; null on SQLite. */
  readonly pgPool: pg.Pool | null;
  /** The SQLite database file (other processes' writes show in its `-wal` beside it); null on PostgreSQL. */
  readonly file: string | null;
  destroy(): Promise<void>;
}

/** The PostgreSQL driver (~10 MiB), loaded only by a process that uses PostgreSQL. */
function loadPg(): typeof pg {
  const driver = createRequire(import.meta.url)('pg') as typeof pg;
  // Timestamps are stored as epoch milliseconds in BIGINT columns; parse them as numbers, not strings.
  driver.types.setTypeParser(driver.types.builtins.INT8, (v) => Number(v));
  driver.types.setTypeParser(driver.types.builtins.NUMERIC, (v) => Number(v));
  return driver;
}

export interface DatabaseOptions {
  url: string | null;
  dataDir: string;
  /** PostgreSQL pool size (default DEFAULT_POOL_SIZE). */
  poolSize?: number;
  /** Pipelined connections of the hot reads (default 2; 0 sends them through the pool). */
  pipelinedConnections?: number;
  /**
   * Hot queries as named server-side statements on PostgreSQL, sent on pipelined connections
   * (default true; src/db/prepared-statements.ts, src/db/pg-pipeline.ts). Off only behind a pooler
   * that cannot keep them (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean;
}

/**
 * PostgreSQL connections per process: a pool of 10 plus the 2 pipelined connections of the hot
 * reads (`pg-pipeline.ts`). The pool serves transactions, lists and every other statement, and the
 * 2 connections a process may hold LISTENing for good (the job worker's wake-ups, the credential
 * cache's invalidations). Why so few (docs/benchmarks.md, issue 10 item 3): a Node process — one
 * core at most — keeps only a few busy; more does not add throughput, the database has only so
 * many cores, and each backend costs it memory and context switches (measured on 2 cores, 20 was
 * no faster than 10). Across a deployment, processes × 12 must stay under PostgreSQL's
 * max_connections (100 by default, a few reserved): up to 7 API or worker processes, or a pooler
 * such as PgBouncer beyond that.
 */
export const DEFAULT_POOL_SIZE = 10;

/** Opens SQLite under dataDir, or PostgreSQL when a URL is given. */
export function openDatabase(options: DatabaseOptions): Database {
  if (options.url) {
    const driver = loadPg();
    const pool = new driver.Pool({
      connectionString: options.url,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      // A server that does not answer at all fails the request (503) instead of holding it forever.
      connectionTimeoutMillis: 10_000,
      Client: options.preparedStatements === false ? driver.Client : preparingClient(driver.Client),
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    // The pipeline sends named statements: it goes with them (off behind a pooler that cannot keep them).
    const pipelined = options.preparedStatements === false ? 0 : (options.pipelinedConnections ?? 2);
    const pipeline =
      pipelined > 0
        ? new PgPipeline(driver.Client, { connectionString: options.url, application_name: 'dms-hot-reads' }, pipelined)
        : null;
    if (pipeline) usePipeline(db, pipeline);
    return {
      db,
      dialect: 'postgres',
      pgPool: pool,
      file: null,
      destroy: () => Promise.all([db.destroy(), pipeline?.close()]).then(() => {}),
    };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, 'service.db');
  const sqlite = openSqlite(file);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', pgPool: null, file, destroy: () => db.destroy() };
}
