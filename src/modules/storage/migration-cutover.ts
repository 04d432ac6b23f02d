import type { Executor } from '../../db/executor.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import { eachLimited } from './bounded.ts';
import type { MigrationFile } from './migration-files.repository.ts';
import type { StorageMigration, StorageMigrationChanges } from './migrations.repository.ts';
import { cutOver } from './placement-moves.ts';
import { type MigrationJobPayload, STORAGE_JOBS, type StorageDeps } from './runner-deps.ts';
import { finish } from './step-end.ts';
import { SHARED_ONLY } from './tenant-storage.repository.ts';

const CHECK_PAGE = 500;

/**
 * Cutover: every operation moves to the target, then the consistency check: each copied file is
 * present in the target with its size, and every document stored meanwhile (uploads of the copy
 * phase, or a straggler that raced the switch) joins the inventory to be verified by the copy
 * phase. Anything missing sends the run back to copy; otherwise it completes.
 */
export async function cutOverAndCheck(
  deps: StorageDeps,
  job: RunningJob<MigrationJobPayload>,
  m: StorageMigration,
): Promise<void> {
  const source = m.sourceProvider;
  const target = m.targetProvider;
  const now = deps.clock.now();
  await deps.database.db.transaction().execute(async (trx) => {
    const placement = (await deps.tenantStorage.find(trx, m.tenantId)) ?? SHARED_ONLY;
    if (placement.current !== target)
      await deps.tenantStorage.save(trx, m.tenantId, cutOver(placement, source, target), now);
  });
  const missing = await missingInTarget(deps, m);
  const added = await deps.database.db.transaction().execute(async (trx) => {
    const count = await deps.files.addMissing(trx, m.tenantId, m.id, deps.clock.now());
    await requeue(deps, trx, m, missing);
    return count;
  });
  const phase = added > 0 || missing.length > 0 ? 'copy' : 'completion';
  await finish(deps, job, {
    next: 'now',
    work: async (trx) => {
      const totals = await deps.files.inventoryTotals(trx, m.tenantId, m.id);
      await deps.migrations.transition(
        trx,
        m.id,
        ['in_progress'],
        { phase, totalFiles: totals.files, totalBytes: totals.bytes },
        deps.clock.now(),
      );
    },
  });
}

/** Copied files the target does not hold with the right size (HEADs a few at a time). */
async function missingInTarget(deps: StorageDeps, m: StorageMigration): Promise<MigrationFile[]> {
  const target = await deps.stores.storeFor(m.tenantId, m.targetProvider);
  const missing: MigrationFile[] = [];
  let after = '';
  for (;;) {
    const page = await deps.files.page(deps.database.db, m.tenantId, m.id, 'copied', after, CHECK_PAGE);
    await eachLimited(page, deps.config.copyConcurrency * 4, async (f) => {
      const head = await target.head(f.storageKey);
      if (head?.size !== f.size) missing.push(f);
    });
    if (page.length < CHECK_PAGE) return missing;
    after = page.at(-1)!.documentId;
  }
}

async function requeue(deps: StorageDeps, trx: Executor, m: StorageMigration, files: MigrationFile[]): Promise<void> {
  const now = deps.clock.now();
  for (const f of files) {
    await deps.files.update(trx, f, {
      status: 'pending',
      nextAttemptAt: now,
      error: 'missing in the target at cutover',
    });
    await deps.migrations.addProgress(trx, m.id, { migratedFiles: -1, migratedBytes: -f.size }, now);
  }
}

/**
 * Completion: the outcome, the retention deadline of the source copies (and its purge job), an
 * audit record and an e-mail to the initiating administrator, in one transaction.
 */
export async function completeMigration(
  deps: StorageDeps,
  job: RunningJob<MigrationJobPayload>,
  m: StorageMigration,
): Promise<void> {
  const now = deps.clock.now();
  await finish(deps, job, {
    work: async (trx) => {
      const failed = await deps.files.countFailed(trx, m.tenantId, m.id);
      const status = failed > 0 ? 'completed_with_errors' : 'completed';
      const purgeAt = now + deps.config.retentionMs;
      const changes: StorageMigrationChanges = {
        status,
        phase: 'done',
        completedAt: now,
        purgeAt,
        purgedAt: null,
        currentFile: null,
        failedFiles: failed,
      };
      if (!(await deps.migrations.transition(trx, m.id, ['in_progress'], changes, now))) return;
      await deps.documents.setProvider(trx, m.tenantId, m.targetProvider, 'all');
      // Files whose copy failed are still only in the source.
      if (failed > 0)
        await deps.documents.setProvider(
          trx,
          m.tenantId,
          m.sourceProvider,
          deps.files.failedDocumentIds(m.tenantId, m.id),
        );
      await deps.jobs.enqueue(
        trx,
        STORAGE_JOBS.purgeSource,
        { migrationId: m.id },
        { tenantId: m.tenantId, runAt: purgeAt },
      );
      const detail = {
        source: m.sourceProvider,
        target: m.targetProvider,
        status,
        migrated_files: m.migratedFiles,
        failed_files: failed,
        migrated_bytes: m.migratedBytes,
      };
      await deps.migrations.audit(trx, {
        tenantId: m.tenantId,
        migrationId: m.id,
        action: 'migration_completed',
        detail,
        at: now,
      });
      const to = m.initiatedByEmail ?? deps.config.notifyEmail;
      if (to) {
        const data = {
          migrationId: m.id,
          source: m.sourceProvider,
          target: m.targetProvider,
          status,
          migratedFiles: m.migratedFiles,
          totalFiles: m.totalFiles,
          failedFiles: failed,
        };
        await deps.mail.enqueue(trx, { tenantId: m.tenantId, kind: 'storage_migration_completed', to, data, at: now });
      }
    },
  });
}
