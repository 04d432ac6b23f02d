import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, type DialectName, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { copyMigratedSqlite, createMigratedPgDatabase, testDatabaseSettings } from './database-templates.ts';
import { dropsDeferredToRun, testDatabaseName } from './test-databases-cleanup.ts';

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';

let pgAvailable: Promise<string | null> | undefined;

/** The PostgreSQL server tests create databases on: TEST_DATABASE_URL, or the local one if it answers. */
export function postgresAdminUrl(): Promise<string | null> {
  pgAvailable ??= (async () => {
    if (process.env['TEST_SKIP_POSTGRES'] === '1') return null;
    const url = process.env['TEST_DATABASE_URL'] || DEFAULT_PG;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return url;
    } catch (error) {
      if (process.env['TEST_DATABASE_URL']) throw error;
      return null;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return pgAvailable;
}

/** Every dialect the suite runs on here: SQLite always, PostgreSQL when one answers. */
export async function availableDialects(): Promise<DialectName[]> {
  return (await postgresAdminUrl()) ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface TestStore {
  dialect: DialectName;
  /** DATABASE_URL for this store (null on SQLite). */
  url: string | null;
  /** A fresh temporary folder: the SQLite file and local blobs live here. */
  dataDir: string;
  /** Drops the PostgreSQL database and removes the folder. */
  drop(): Promise<void>;
}

export interface TestStoreOptions {
  /**
   * Start from the migrated schema (a copy of a template migrated once, see database-templates.ts)
   * instead of an empty database. Default false: tests of migrations and of processes that migrate
   * by themselves get an empty one.
   */
  migrated?: boolean;
}

/** Creates a store of the given dialect: a new temp folder, and on PostgreSQL a new database. */
export async function createTestStore(dialect: DialectName, options: TestStoreOptions = {}): Promise<TestStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-test-'));
  let url: string | null = null;
  let dbName: string | null = null;
  const adminUrl = await postgresAdminUrl();
  if (dialect === 'postgres') {
    if (!adminUrl) throw new Error('PostgreSQL is not available');
    dbName = testDatabaseName();
    if (options.migrated) {
      await createMigratedPgDatabase(
        adminUrl,
        dbName,
        testDatabaseName(`tmpl_${Math.random().toString(36).slice(2, 10)}`),
      );
    } else {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.query(testDatabaseSettings(dbName));
      await admin.end();
    }
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    url = u.toString();
  } else if (options.migrated) {
    await copyMigratedSqlite(dataDir);
  }
  return {
    dialect,
    url,
    dataDir,
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      // Under `npm test` the runner drops the run's databases together at its end (see test-databases-cleanup.ts).
      if (dbName && adminUrl && !dropsDeferredToRun()) {
        const admin = new pg.Client({ connectionString: adminUrl });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await admin.end();
      }
    },
  };
}

/** Opens and migrates a fresh database of the dialect, for tests below the HTTP layer. */
export async function openTestDatabase(
  dialect: DialectName,
): Promise<{ database: Database; store: TestStore; close(): Promise<void> }> {
  const store = await createTestStore(dialect, { migrated: true });
  const database = openDatabase({ url: store.url, dataDir: store.dataDir });
  await migrateToLatest(database.db);
  return {
    database,
    store,
    async close() {
      await database.destroy();
      await store.drop();
    },
  };
}
