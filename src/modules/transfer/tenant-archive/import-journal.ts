import fs from 'node:fs';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { BlobStore } from '../../../providers/blobs/blob-store.ts';
import { HEARTBEAT_MS, LEASE_MS } from '../instance-lease.ts';

const BATCH = 500;

/**
 * The journal of one running tenant import (issue 35, docs/tenant-export.md "Interruption"). A
 * `tenant_imports` row is committed before the import stores a single file, and every blob key is
 * committed (`tenant_import_blobs`) before the file is written; the row's heartbeat is refreshed
 * while the import runs, and its status turns `committed` inside the rows' transaction. So a
 * process killed at any moment leaves either a committed tenant, or a `running` row with a stale
 * heartbeat naming every file it may have stored — which `sweepAbandonedImports` deletes.
 */
export class ImportJournal {
  readonly id: string;
  readonly #db: Kysely<DB>;
  readonly #now: () => number;
  readonly #recorded = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #beating: Promise<unknown> | null = null;

  private constructor(db: Kysely<DB>, id: string, now: () => number) {
    this.#db = db;
    this.id = id;
    this.#now = now;
  }

  /** Records the import as `running` (committed at once) and starts its heartbeat. */
  static async open(
    db: Kysely<DB>,
    now: () => number,
    row: { id: string; tenantId: string; subdomain: string; stagingDir: string },
  ): Promise<ImportJournal> {
    const at = now();
    await db
      .insertInto('tenant_imports')
      .values({
        id: row.id,
        tenant_id: row.tenantId,
        subdomain: row.subdomain,
        status: 'running',
        host: os.hostname(),
        pid: process.pid,
        staging_dir: row.stagingDir,
        error: null,
        created_at: at,
        heartbeat_at: at,
        finished_at: null,
      })
      .execute();
    const journal = new ImportJournal(db, row.id, now);
    journal.#timer = setInterval(() => {
      // One beat at a time: on PostgreSQL a beat waits for the rows' transaction (it locks the row).
      journal.#beating ??= db
        .updateTable('tenant_imports')
        .set({ heartbeat_at: now() })
        .where('id', '=', row.id)
        .where('status', '=', 'running')
        .execute()
        .catch(() => {})
        .finally(() => {
          journal.#beating = null;
        });
    }, HEARTBEAT_MS);
    journal.#timer.unref();
    return journal;
  }

  /** Whether another running import already claims this tenant id (two imports of one archive at once). */
  static async tenantClaimed(db: Kysely<DB>, tenantId: string): Promise<boolean> {
    const row = await db
      .selectFrom('tenant_imports')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Commits the keys the import is about to write (before writing them); keys already recorded are skipped. */
  async record(keys: Iterable<string>): Promise<void> {
    const fresh = [...new Set(keys)].filter((k) => !this.#recorded.has(k));
    for (let i = 0; i < fresh.length; i += BATCH) {
      const batch = fresh.slice(i, i + BATCH);
      await this.#db
        .insertInto('tenant_import_blobs')
        .values(batch.map((key) => ({ import_id: this.id, key })))
        .onConflict((oc) => oc.doNothing())
        .execute();
      for (const k of batch) this.#recorded.add(k);
    }
  }

  /**
   * Inside the rows' transaction, first: marks the import committed (on PostgreSQL this locks the
   * row, so a sweep that comes meanwhile waits and then finds it committed). Throws when the sweep
   * has already given the import up (its heartbeat had stopped long enough): nothing is committed.
   */
  async commit(trx: Kysely<DB>): Promise<void> {
    const result = await trx
      .updateTable('tenant_imports')
      .set({ status: 'committed', finished_at: this.#now(), staging_dir: null })
      .where('id', '=', this.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1)
      throw new Error('the import was given up by the sweep of abandoned imports (its heartbeat stopped)');
    await trx.deleteFrom('tenant_import_blobs').where('import_id', '=', this.id).execute();
  }

  /** After a refusal, once its files are deleted: `failed`, keys forgotten. */
  async fail(error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    await this.#db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('tenant_imports')
          .set({ status: 'failed', finished_at: this.#now(), error: message.slice(0, 2000), staging_dir: null })
          .where('id', '=', this.id)
          .where('status', '=', 'running')
          .execute();
        await trx.deleteFrom('tenant_import_blobs').where('import_id', '=', this.id).execute();
      })
      .catch(() => {
        // The sweep finishes the job once the heartbeat is stale.
      });
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating;
  }
}

/**
 * Deletes what imports killed mid-way left: every `running` import whose heartbeat is older than
 * LEASE_MS (its process stopped without finishing: kill -9, power loss) is marked `abandoned`
 * first (so a late commit of a stalled one fails instead of keeping deleted files), then each key it
 * recorded is deleted from the blob store, and its staging folder when it is on this host.
 * Answers how many imports and files were cleaned up. Run by the worker (`transfer.sweep_imports`).
 */
export async function sweepAbandonedImports(
  deps: { db: Kysely<DB>; blobs: BlobStore; logger?: Logger },
  now: number,
): Promise<{ imports: number; blobs: number }> {
  const { db, blobs } = deps;
  const cutoff = now - LEASE_MS;
  const stale = await db
    .selectFrom('tenant_imports')
    .select(['id', 'tenant_id', 'host', 'staging_dir'])
    .where('status', '=', 'running')
    .where('heartbeat_at', '<', cutoff)
    .execute();
  let imports = 0;
  let deleted = 0;
  for (const row of stale) {
    const claimed = await db
      .updateTable('tenant_imports')
      .set({ status: 'abandoned', finished_at: now, error: 'the import stopped before it committed (process killed)' })
      .where('id', '=', row.id)
      .where('status', '=', 'running')
      .where('heartbeat_at', '<', cutoff)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) continue; // it beat or committed meanwhile
    imports++;
    for (;;) {
      const keys = await db
        .selectFrom('tenant_import_blobs')
        .select('key')
        .where('import_id', '=', row.id)
        .orderBy('key')
        .limit(BATCH)
        .execute();
      if (keys.length === 0) break;
      await Promise.all(keys.map((k) => blobs.delete(k.key)));
      deleted += keys.length;
      await db
        .deleteFrom('tenant_import_blobs')
        .where('import_id', '=', row.id)
        .where(
          'key',
          'in',
          keys.map((k) => k.key),
        )
        .execute();
    }
    if (row.staging_dir && row.host === os.hostname())
      await fs.promises.rm(row.staging_dir, { recursive: true, force: true }).catch(() => {});
    await db.updateTable('tenant_imports').set({ staging_dir: null }).where('id', '=', row.id).execute();
    deps.logger?.warn(
      { importId: row.id, tenantId: row.tenant_id, blobs: deleted },
      'abandoned tenant import cleaned up',
    );
  }
  return { imports, blobs: deleted };
}
