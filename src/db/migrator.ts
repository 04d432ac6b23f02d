import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { connectionFailure, DatabaseConnectionError } from './connection-errors.ts';
import type { DB } from './schema.ts';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Loads every `<timestamp>_<name>.ts` file of the one migrations folder, shared by both dialects. */
class FolderMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      // A relative template, not a computed path: the production bundle (scripts/bundle.ts) then
      // carries every migration file instead of loading a second copy of Kysely beside it.
      migrations[file.replace(/\.ts$/, '')] = (await import(`./migrations/${file}`)) as Migration;
    }
    return migrations;
  }
}

/**
 * Brings the schema up to date. Throws DatabaseConnectionError, saying what failed (connection
 * refused by host:port, authentication, missing database...), when the database cannot be used at
 * all, and an error naming the migration when one fails.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new FolderMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    if (failed) throw new Error(`migration ${failed.migrationName} failed: ${reason}`, { cause: error });
    const unreachable = connectionFailure(error);
    if (unreachable) throw new DatabaseConnectionError(`cannot use the database: ${unreachable}`, error);
    throw new Error(`migrations could not start: ${reason}`, { cause: error });
  }
  return (results ?? []).map((r) => r.migrationName);
}
