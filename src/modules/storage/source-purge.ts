import type { RunningJob } from '../../jobs/job-types.ts';
import { eachLimited } from './bounded.ts';
import { afterPurge } from './placement-moves.ts';
import type { MigrationJobPayload, StorageDeps } from './runner-deps.ts';
import { rescueStragglers } from './stragglers.ts';

const PURGE_PAGE = 500;

/**
 * After STORAGE_RETENTION_DAYS: deletes the source copies of the files the migration copied.
 * Files whose copy failed keep their only copy (and the source stays readable for them). Nothing
 * is deleted when the tenant uses the source again (a migration back, or one running): the
 * "source" may be where its files are now.
 */
export async function purgeSource(deps: StorageDeps, job: RunningJob<MigrationJobPayload>): Promise<void> {
  const db = deps.database.db;
  const m = await deps.migrations.findById(db, job.payload.migrationId);
  const placement = m ? await deps.tenantStorage.find(db, m.tenantId) : null;
  const running = m ? await deps.migrations.running(db, m.tenantId) : null;
  // A retry in progress schedules its own purge when it completes.
  if (!m || m.purgedAt !== null || m.status === 'in_progress' || m.status === 'pending') return complete(deps, job);
  const source = m.sourceProvider;
  // The source may be deleted from unless the tenant uses it again (moved back, or moving now).
  const purgeable = !!placement && !running && placement.current !== source && placement.write !== source;
  let rescued = 0;
  let held = 0;
  if (purgeable) {
    const store = await deps.stores.storeFor(m.tenantId, source);
    rescued = await rescueStragglers(deps, m, store, await deps.stores.storeFor(m.tenantId, m.targetProvider));
    let after = '';
    for (;;) {
      const page = await deps.files.page(db, m.tenantId, m.id, 'copied', after, PURGE_PAGE);
      // A legal hold blocks the purge of what it covers: those source copies stay (and the source stays readable).
      const onHold = await deps.holds.heldDocuments(
        db,
        m.tenantId,
        page.map((f) => f.documentId),
      );
      held += onHold.size;
      await eachLimited(
        page.filter((f) => !onHold.has(f.documentId)),
        deps.config.copyConcurrency * 4,
        async (f) => {
          await store.delete(f.storageKey);
          if (f.thumbnailKey) await store.delete(f.thumbnailKey);
        },
      );
      if (page.length < PURGE_PAGE) break;
      after = page.at(-1)!.documentId;
    }
  }
  const now = deps.clock.now();
  await db.transaction().execute(async (trx) => {
    if (purgeable && placement) {
      const keepSource = held > 0 || (await deps.files.countFailed(trx, m.tenantId, m.id)) > 0;
      await deps.tenantStorage.save(trx, m.tenantId, afterPurge(placement, source, keepSource), now);
    }
    await deps.migrations.update(trx, m.id, { purgedAt: now }, now);
    await deps.migrations.audit(trx, {
      tenantId: m.tenantId,
      migrationId: m.id,
      action: purgeable ? 'source_purged' : 'source_purge_skipped',
      detail: { source, stragglers_copied: rescued, ...(held > 0 ? { kept_under_legal_hold: held } : {}) },
      at: now,
    });
    await job.completeIn(trx);
  });
}

async function complete(deps: StorageDeps, job: RunningJob<MigrationJobPayload>): Promise<void> {
  await deps.database.db.transaction().execute((trx) => job.completeIn(trx));
}
