/**
 * Migrated template databases, so a test store starts from a copy instead of running every
 * migration again: on PostgreSQL `CREATE DATABASE … TEMPLATE` of a database migrated once (kept
 * between runs, named after a hash of the migrations), on SQLite a copy of a migrated file. Under
 * load a fresh migration cost 2–5 s per PostgreSQL store and 0.5–0.8 s per SQLite one; a copy
 * costs a fraction of that. The copy is the same schema the migrations build: a changed migration
 * changes the hash, and so the template.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';

const SRC_DB = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/db');

/** Cluster-wide advisory lock key: building or dropping a template is exclusive, cloning one is shared. */
export const TEMPLATE_LOCK_KEY = 0x646d5374; // 'dmSt'

export const PG_TEMPLATE_PREFIX = 'dms_template_';

let hash: string | undefined;

/**
 * A hash of what decides the migrated schema: every migration file, the relative modules they
 * import, and the migrator.
 */
export function migrationsHash(): string {
  if (hash) return hash;
  const h = createHash('sha256');
  const dir = path.join(SRC_DB, 'migrations');
  const files = new Set<string>([path.join(SRC_DB, 'migrator.ts')]);
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.ts')) continue;
    const file = path.join(dir, name);
    files.add(file);
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g))
      files.add(path.resolve(dir, m[1]!));
  }
  for (const file of [...files].sort()) {
    h.update(path.relative(SRC_DB, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  hash = h.digest('hex').slice(0, 12);
  return hash;
}

export function pgTemplateName(): string {
  return `${PG_TEMPLATE_PREFIX}${migrationsHash()}`;
}

function databaseUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withAdmin<T>(adminUrl: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function templateExists(client: pg.Client, name: string): Promise<boolean> {
  const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
  return (rowCount ?? 0) > 0;
}

/**
 * Makes sure the migrated PostgreSQL template of the current migrations exists: built once, under
 * the exclusive lock, by whichever process of the run asks first. `buildName` is the database it
 * is migrated in before being renamed (named like a test database, so a killed build is cleaned up
 * as a stale one).
 */
export async function ensurePgTemplate(adminUrl: string, buildName: string): Promise<string> {
  const name = pgTemplateName();
  await withAdmin(adminUrl, async (client) => {
    if (await templateExists(client, name)) return;
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      if (await templateExists(client, name)) return;
      await client.query(`CREATE DATABASE ${buildName}`);
      const database = openDatabase({ url: databaseUrl(adminUrl, buildName), dataDir: os.tmpdir() });
      try {
        await migrateToLatest(database.db);
      } finally {
        await database.destroy();
      }
      await client.query(`ALTER DATABASE ${buildName} RENAME TO ${name}`);
      // Nobody connects to a template: a connection would block every copy of it.
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    } catch (error) {
      await client.query(`DROP DATABASE IF EXISTS ${buildName} WITH (FORCE)`).catch(() => {});
      throw error;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
  return name;
}

/**
 * Settings of every test database (database-level, so the app, its worker processes and the CLI
 * all get them): commits do not wait for the WAL to reach the disk. A test's commits are still
 * atomic and seen by every other connection at once; only a crash of the PostgreSQL server itself
 * could lose the last ones, which no test does. SQLite is run the same way (WAL with
 * `synchronous = NORMAL`, src/db/node-sqlite-adapter.ts), so the dialects compare fairly: with
 * each commit waiting on an fsync (~6 ms here, more when other processes write) the PostgreSQL half of
 * a file spent much of its time waiting on the disk. TEST_PG_SYNCHRONOUS_COMMIT=on keeps the server's default.
 */
export function testDatabaseSettings(name: string): string {
  const value = process.env.TEST_PG_SYNCHRONOUS_COMMIT === 'on' ? 'on' : 'off';
  return `ALTER DATABASE ${name} SET synchronous_commit = ${value}`;
}

/** Creates `name` as a copy of the migrated template (which it builds first if needed). */
export async function createMigratedPgDatabase(adminUrl: string, name: string, buildName: string): Promise<void> {
  await withAdmin(adminUrl, async (client) => {
    for (;;) {
      const template = await ensurePgTemplate(adminUrl, buildName);
      // Shared: copies run side by side, and no template is dropped under one (see dropOtherPgTemplates).
      await client.query('select pg_advisory_lock_shared($1)', [TEMPLATE_LOCK_KEY]);
      try {
        // Dropped between the check and the lock by a run of other migrations: build it again.
        if (!(await templateExists(client, template))) continue;
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        await client.query(testDatabaseSettings(name));
        return;
      } finally {
        await client.query('select pg_advisory_unlock_shared($1)', [TEMPLATE_LOCK_KEY]);
      }
    }
  });
}

/**
 * Drops the templates of other migrations (left by an earlier checkout), when no process is
 * building or copying a template right now; otherwise leaves them for a later run.
 */
export async function dropOtherPgTemplates(adminUrl: string): Promise<string[]> {
  return withAdmin(adminUrl, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
      TEMPLATE_LOCK_KEY,
    ]);
    if (!rows[0]?.locked) return [];
    try {
      const current = pgTemplateName();
      const { rows: templates } = await client.query<{ datname: string }>(
        'select datname from pg_database where datname like $1',
        [`${PG_TEMPLATE_PREFIX}%`],
      );
      const dropped: string[] = [];
      for (const { datname } of templates) {
        if (datname === current) continue;
        await client.query(`DROP DATABASE IF EXISTS ${datname}`);
        dropped.push(datname);
      }
      return dropped;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
}

const SQLITE_TEMPLATE_PREFIX = 'dms-test-sqlite-template-';
let sqliteTemplate: Promise<string> | undefined;

/**
 * The folder of a migrated SQLite file for the current migrations, under the system's temp folder:
 * built by the first process that needs it, published by an atomic rename, reused after that.
 */
export function ensureSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const final = path.join(os.tmpdir(), `${SQLITE_TEMPLATE_PREFIX}${migrationsHash()}`);
    if (fs.existsSync(path.join(final, 'service.db'))) return final;
    const building = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-test-build-'));
    const database = openDatabase({ url: null, dataDir: building });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.destroy();
    }
    try {
      fs.renameSync(building, final);
    } catch {
      // Another process published it first: use theirs.
      fs.rmSync(building, { recursive: true, force: true });
    }
    return final;
  })();
  return sqliteTemplate;
}

/** Copies the migrated SQLite file into `dataDir` (where openDatabase looks for it). */
export async function copyMigratedSqlite(dataDir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const template = await ensureSqliteTemplate();
    try {
      for (const name of fs.readdirSync(template)) {
        // The shared-memory index is rebuilt on open; the file and any WAL are the database.
        if (name.endsWith('-shm')) continue;
        fs.copyFileSync(path.join(template, name), path.join(dataDir, name));
      }
      // The folder's time says when it was last used (see removeOldSqliteTemplates).
      fs.utimesSync(template, new Date(), new Date());
      return;
    } catch (error) {
      if (attempt > 0 || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      sqliteTemplate = undefined; // removed under us: build it again
    }
  }
}

/** Removes SQLite templates of other migrations that no run has used for a day. */
export function removeOldSqliteTemplates(): void {
  const current = `${SQLITE_TEMPLATE_PREFIX}${migrationsHash()}`;
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(SQLITE_TEMPLATE_PREFIX) || name === current) continue;
    const folder = path.join(os.tmpdir(), name);
    // Age, not a lock: a run of another checkout may be copying a recent one right now.
    if (fs.statSync(folder).mtimeMs < dayAgo) fs.rmSync(folder, { recursive: true, force: true });
  }
}
