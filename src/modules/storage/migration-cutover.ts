import type { Executor } from '../../db/executor.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import { eachLimited } from './bounded.ts';
import { markDocuments, markFailedAtSource } from './document-locations.ts';
import type { MigrationFileRow } from './migration-files.repository.ts';
import type { MigrationRow } from './migrations.repository.ts';
import { cutOver } from './placement-moves.ts';
import { type MigrationJobPayload, STORAGE_JOBS, type StorageDeps } from './runner-deps.ts';
import { finish } from './step-end.ts';
import type { ProviderName } from './storage-providers.ts';
import { SHARED_ONLY } from './tenant-storage.repository.ts';

const CHECK_PAGE = 500;

/**
 * Cutover: every operation moves to the target, then the consistency check: each copied file is
 * present in the target with its size, and every document stored meanwhile (uploads of the copy
 * phase, or a straggler that raced the switch) joins the inventory to be verified by the copy
 * phase. Anything missing sends the run back to copy; otherwise it completes.
 */
export async function cutOverAndCheck(deps: StorageDeps, job: RunningJob<MigrationJobPayload>, m: MigrationRow): Promise<void> {
  const source = m.source_provider as ProviderName;
  const target = m.target_provider as ProviderName;
  const now = deps.clock.now();
  await deps.database.db.transaction().execute(async (trx) => {
    const placement = (await deps.tenantStorage.find(trx, m.tenant_id)) ?? SHARED_ONLY;
    if (placement.current !== target) await deps.tenantStorage.save(trx, m.tenant_id, cutOver(placement, source, target), now);
  });
  const missing = await missingInTarget(deps, m);
  const added = await deps.database.db.transaction().execute(async (trx) => {
    const count = await deps.files.addMissing(trx, m.tenant_id, m.id, deps.clock.now());
    await requeue(deps, trx, m, missing);
    return count;
  });
  const phase = added > 0 || missing.length > 0 ? 'copy' : 'completion';
  await finish(deps, job, {
    next: 'now',
    work: async (trx) => {
      const totals = await deps.files.inventoryTotals(trx, m.tenant_id, m.id);
      await deps.migrations.transition(trx, m.id, ['in_progress'], { phase, total_files: totals.files, total_bytes: totals.bytes }, deps.clock.now());
    },
  });
}

/** Copied files the target does not hold with the right size (HEADs a few at a time). */
async function missingInTarget(deps: StorageDeps, m: MigrationRow): Promise<MigrationFileRow[]> {
  const target = await deps.stores.storeFor(m.tenant_id, m.target_provider as ProviderName);
  const missing: MigrationFileRow[] = [];
  let after = '';
  for (;;) {
    const page = await deps.files.page(deps.database.db, m.tenant_id, m.id, 'copied', after, CHECK_PAGE);
    await eachLimited(page, deps.config.copyConcurrency * 4, async (f) => {
      const head = await target.head(f.storage_key);
      if (head?.size !== Number(f.size)) missing.push(f);
    });
    if (page.length < CHECK_PAGE) return missing;
    after = page.at(-1)!.document_id;
  }
}

async function requeue(deps: StorageDeps, trx: Executor, m: MigrationRow, files: MigrationFileRow[]): Promise<void> {
  const now = deps.clock.now();
  for (const f of files) {
    await trx
      .updateTable('storage_migration_files')
      .set({ status: 'pending', next_attempt_at: now, error: 'missing in the target at cutover' })
      .where('migration_id', '=', m.id)
      .where('document_id', '=', f.document_id)
      .execute();
    await deps.migrations.addProgress(trx, m.id, { migratedFiles: -1, migratedBytes: -Number(f.size) }, now);
  }
}

/**
 * Completion: the outcome, the retention deadline of the source copies (and its purge job), an
 * audit record and an e-mail to the initiating administrator, in one transaction.
 */
export async function completeMigration(deps: StorageDeps, job: RunningJob<MigrationJobPayload>, m: MigrationRow): Promise<void> {
  const now = deps.clock.now();
  await finish(deps, job, {
    work: async (trx) => {
      const failed = await deps.files.countFailed(trx, m.tenant_id, m.id);
      const status = failed > 0 ? 'completed_with_errors' : 'completed';
      const purgeAt = now + deps.config.retentionMs;
      const changes = { status, phase: 'done', completed_at: now, purge_at: purgeAt, purged_at: null, current_file: null, failed_files: failed };
      if (!(await deps.migrations.transition(trx, m.id, ['in_progress'], changes, now))) return;
      await markDocuments(trx, m.tenant_id, m.target_provider);
      if (failed > 0) await markFailedAtSource(trx, m.tenant_id, m.id, m.source_provider);
      await deps.jobs.enqueue(trx, STORAGE_JOBS.purgeSource, { migrationId: m.id }, { tenantId: m.tenant_id, runAt: purgeAt });
      const detail = { source: m.source_provider, target: m.target_provider, status, migrated_files: m.migrated_files, failed_files: failed, migrated_bytes: m.migrated_bytes };
      await deps.migrations.audit(trx, { tenantId: m.tenant_id, migrationId: m.id, action: 'migration_completed', detail, at: now });
      const to = m.initiated_by_email ?? deps.config.notifyEmail;
      if (to) await deps.mail.enqueue(trx, { tenantId: m.tenant_id, kind: 'storage_migration_completed', to, at: now, ...completionMail(m, status, failed) });
    },
  });
}

function completionMail(m: MigrationRow, status: string, failed: number): { subject: string; body: string } {
  const subject = `Storage migration ${status === 'completed' ? 'completed' : 'completed with errors'}: ${m.source_provider} to ${m.target_provider}`;
  const lines = [
    `The storage migration ${m.id} of tenant ${m.tenant_id} from ${m.source_provider} to ${m.target_provider} finished with status ${status}.`,
    `Files migrated: ${m.migrated_files} of ${m.total_files}; failed: ${failed}.`,
    failed > 0 ? 'Failed files are still served from the source; list them with GET /api/v1/admin/storage/migrations/{migration_id}/failed and retry with POST .../retry.' : '',
    'The source copies are kept for the retention period, then deleted.',
  ];
  return { subject, body: lines.filter(Boolean).join('\n') };
}
