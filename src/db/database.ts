import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import { openSqlite } from './node-sqlite-adapter.ts';

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

// Timestamps are stored as epoch milliseconds in BIGINT columns; parse them as numbers, not strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export interface DatabaseOptions {
  url: string | null;
  dataDir: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

/** Opens SQLite under dataDir, or PostgreSQL when a URL is given. */
export function openDatabase(options: DatabaseOptions): Database {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', pgPool: pool, file: null, destroy: () => db.destroy() };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, 'service.db');
  const sqlite = openSqlite(file);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', pgPool: null, file, destroy: () => db.destroy() };
}
