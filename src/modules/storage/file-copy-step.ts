import { BlobNotFoundError, type BlobStore } from '../../providers/blobs/blob-store.ts';
import type { Semaphore } from './bounded.ts';
import type { MigrationFile } from './migration-files.repository.ts';
import type { StorageMigration } from './migrations.repository.ts';
import type { StorageDeps } from './runner-deps.ts';
import { copyVerified, holdsExactly } from './verified-copy.ts';

/** The stores one migration reads from (source first) and writes to. */
export interface CopyRoute {
  sources: readonly BlobStore[];
  target: BlobStore;
  /**
   * Whether the target may already hold verified copies: a re-run step (a crashed worker), or an
   * earlier migration to the same target (a restart after cancel). Then a copy that is already
   * there, byte for byte, is not made again; otherwise the check would only cost a request.
   */
  mayHoldCopies: boolean;
  /** Bounds the uploads in flight to STORAGE_MIGRATION_CONCURRENCY. */
  uploads: Semaphore;
}

const MAX_ERROR_LENGTH = 500;

/**
 * Copies one document (and its thumbnail) and records the outcome in one transaction with the
 * migration's counters, so a crash before the commit only means the file is checked again (the
 * re-run finds the verified copy already there) and never counts twice.
 */
export async function copyFileStep(
  deps: StorageDeps,
  m: StorageMigration,
  f: MigrationFile,
  route: CopyRoute,
): Promise<void> {
  try {
    await copyDocument(route, f);
  } catch (error) {
    if (
      error instanceof BlobNotFoundError &&
      !(await deps.documents.exists(deps.database.db, f.tenantId, f.documentId))
    )
      return settleSkipped(deps, m, f);
    return attemptFailed(deps, m, f, error);
  }
  const now = deps.clock.now();
  const settled = await deps.database.db.transaction().execute(async (trx) => {
    // Deleted while being copied: the delete may have missed the copy that was still arriving.
    if (!(await deps.documents.exists(trx, f.tenantId, f.documentId))) return 'deleted';
    if (
      !(await deps.files.settle(trx, f, {
        status: 'copied',
        attempts: f.attempts + 1,
        error: null,
        lastAttemptAt: now,
      }))
    )
      return 'settled';
    await deps.migrations.addProgress(trx, m.id, { migratedFiles: 1, migratedBytes: f.size }, now);
    await deps.migrations.update(trx, m.id, { currentFile: f.storageKey }, now);
    await deps.documents.setProvider(trx, m.tenantId, m.targetProvider, [f.documentId]);
    return 'settled';
  });
  if (settled === 'deleted') {
    await route.target.delete(f.storageKey);
    if (f.thumbnailKey) await route.target.delete(f.thumbnailKey);
    await settleSkipped(deps, m, f);
  }
}

/** Makes the target hold the document's exact bytes (and its thumbnail), copying only when needed. */
async function copyDocument(route: CopyRoute, f: MigrationFile): Promise<void> {
  const expected = { sha256: f.sha256, size: f.size };
  const check = route.mayHoldCopies || f.attempts > 0;
  if (!(check && (await holdsExactly(route.target, f.storageKey, expected)))) {
    try {
      await copyVerified(route.sources, route.target, f.storageKey, expected, (work) => route.uploads.run(work));
    } catch (error) {
      // Uploaded during the copy (it joined the inventory at cutover): only the target has it.
      if (!(error instanceof BlobNotFoundError && (await holdsExactly(route.target, f.storageKey, expected))))
        throw error;
    }
  }
  if (f.thumbnailKey) await copyThumbnail(route, f.thumbnailKey);
}

async function copyThumbnail(route: CopyRoute, key: string): Promise<void> {
  try {
    await copyVerified(route.sources, route.target, key, null, (work) => route.uploads.run(work));
  } catch (error) {
    // Not every document has a rendered thumbnail yet; one rendered later goes to the new store.
    if (!(error instanceof BlobNotFoundError)) throw error;
  }
}

async function settleSkipped(deps: StorageDeps, m: StorageMigration, f: MigrationFile): Promise<void> {
  const now = deps.clock.now();
  await deps.database.db.transaction().execute(async (trx) => {
    if (await deps.files.settle(trx, f, { status: 'skipped', lastAttemptAt: now })) {
      await deps.migrations.addProgress(trx, m.id, { skippedFiles: 1 }, now);
    }
  });
}

/**
 * A failed attempt: retried after the next delay of STORAGE_MIGRATION_RETRY_DELAYS; once they are
 * spent the file is `failed` (listed by `/failed`, still served from the source).
 */
async function attemptFailed(deps: StorageDeps, m: StorageMigration, f: MigrationFile, error: unknown): Promise<void> {
  const now = deps.clock.now();
  const attempts = f.attempts + 1;
  const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
  const delay = deps.config.retryDelaysMs[attempts - 1];
  deps.logger.warn(
    { migrationId: m.id, documentId: f.documentId, attempts, err: message },
    'storage migration: file copy failed',
  );
  await deps.database.db.transaction().execute(async (trx) => {
    const base = { attempts, error: message, lastAttemptAt: now };
    if (delay !== undefined) {
      await deps.files.settle(trx, f, { ...base, nextAttemptAt: now + delay });
    } else if (await deps.files.settle(trx, f, { ...base, status: 'failed' })) {
      await deps.migrations.addProgress(trx, m.id, { failedFiles: 1 }, now);
    }
  });
}
