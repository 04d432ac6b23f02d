import type { RunningJob } from '../../jobs/job-types.ts';
import { eachLimited, Semaphore } from './bounded.ts';
import { type CopyRoute, copyFileStep } from './file-copy-step.ts';
import { completeMigration, cutOverAndCheck } from './migration-cutover.ts';
import type { MigrationFile } from './migration-files.repository.ts';
import { type StorageMigration, RUNNING_STATES } from './migrations.repository.ts';
import { startCopy } from './placement-moves.ts';
import { probeStore } from './probe.ts';
import { freeBytesOf } from './provider-stores.ts';
import type { MigrationJobPayload, StorageDeps } from './runner-deps.ts';
import { finish } from './step-end.ts';
import type { ProviderName } from './storage-providers.ts';
import { SHARED_ONLY } from './tenant-storage.repository.ts';

/** Spec Limits: "destination capacity advised for migration: 20 percent extra". */
export const CAPACITY_HEADROOM = 1.2;
/**
 * Files one step takes before it hands over to the next step (bounded work per job run, with the
 * time budget below). Each hand-over drains the lanes and waits for the next job to be claimed, so
 * small steps cost throughput: at 256 a 2,000-file run paid it eight times.
 */
const FILES_PER_STEP = 1000;
/** A step stops taking files after this long, so a run of big files still hands over regularly. */
const STEP_BUDGET_MS = 30_000;
/** How stale a lane's view of a cancel may be: cancel stops the copy within this time. */
const CANCEL_CHECK_MS = 200;

/**
 * One step of a migration run, in the spec's phases: preparation, copy, cutover, completion.
 * Every step ends by enqueueing the next one in the transaction that marks this job done
 * (`job.completeIn`), so a killed process resumes at the step it was in, from the database.
 */
export async function runMigrationStep(deps: StorageDeps, job: RunningJob<MigrationJobPayload>): Promise<void> {
  const m = await deps.migrations.findById(deps.database.db, job.payload.migrationId);
  if (!m || !(RUNNING_STATES as readonly string[]).includes(m.status)) return finish(deps, job);
  const started = performance.now();
  await runPhase(deps, job, m);
  deps.logger.debug(
    {
      migrationId: m.id,
      phase: m.phase,
      ms: Math.round(performance.now() - started),
      rssMiB: Math.round(process.memoryUsage().rss / 1048576),
    },
    'storage migration step',
  );
}

function runPhase(deps: StorageDeps, job: RunningJob<MigrationJobPayload>, m: StorageMigration): Promise<void> {
  if (m.phase === 'preparation') return prepare(deps, job, m);
  if (m.phase === 'copy') return copyStep(deps, job, m);
  if (m.phase === 'cutover') return cutOverAndCheck(deps, job, m);
  if (m.phase === 'completion') return completeMigration(deps, job, m);
  return finish(deps, job);
}

/** Preparation: the target answers, there is room, then uploads switch to it and the inventory is taken. */
async function prepare(deps: StorageDeps, job: RunningJob<MigrationJobPayload>, m: StorageMigration): Promise<void> {
  const problem = await targetProblem(deps, m);
  if (problem) return failMigration(deps, job, m, problem);
  const now = deps.clock.now();
  await finish(deps, job, {
    next: 'now',
    work: async (trx) => {
      const moved = await deps.migrations.transition(
        trx,
        m.id,
        ['pending'],
        { status: 'in_progress', phase: 'copy', startedAt: now },
        now,
      );
      if (!moved) throw new Error(`storage migration ${m.id} left pending while preparing`);
      const placement = (await deps.tenantStorage.find(trx, m.tenantId)) ?? SHARED_ONLY;
      // Files stored before the switch are in the source; the switch and the inventory commit together.
      await deps.documents.setProvider(trx, m.tenantId, placement.current, 'all');
      await deps.tenantStorage.save(trx, m.tenantId, startCopy(placement, m.targetProvider), now);
      await deps.files.addMissing(trx, m.tenantId, m.id, now);
      const totals = await deps.files.inventoryTotals(trx, m.tenantId, m.id);
      await deps.migrations.update(trx, m.id, { totalFiles: totals.files, totalBytes: totals.bytes }, now);
      await deps.migrations.audit(trx, {
        tenantId: m.tenantId,
        migrationId: m.id,
        action: 'migration_started',
        detail: { source: m.sourceProvider, target: m.targetProvider },
        at: now,
      });
    },
  }).catch(async (error: unknown) => {
    // Cancelled while preparing: nothing was switched; the job just ends.
    const current = await deps.migrations.findById(deps.database.db, m.id);
    if (current?.status === 'cancelled') return finish(deps, job);
    throw error;
  });
}

/** Why the target cannot take the tenant's files, or null when it can (probe and capacity). */
async function targetProblem(deps: StorageDeps, m: StorageMigration): Promise<string | null> {
  try {
    const target = await deps.stores.storeFor(m.tenantId, m.targetProvider);
    await probeStore(target, m.tenantId);
    const free = await freeBytesOf(target);
    const needed = Math.ceil(m.totalBytes * CAPACITY_HEADROOM);
    if (free !== null && free < needed)
      return `the target has ${free} bytes free; ${needed} are needed (the files plus 20% headroom)`;
    return null;
  } catch (error) {
    return `the target storage did not accept a probe object: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A run that cannot go on: `failed`, and uploads stay where the tenant's files are. */
async function failMigration(
  deps: StorageDeps,
  job: RunningJob<MigrationJobPayload>,
  m: StorageMigration,
  reason: string,
): Promise<void> {
  const now = deps.clock.now();
  await finish(deps, job, {
    work: async (trx) => {
      if (
        !(await deps.migrations.transition(
          trx,
          m.id,
          RUNNING_STATES,
          { status: 'failed', error: reason, completedAt: now },
          now,
        ))
      )
        return;
      await deps.migrations.audit(trx, {
        tenantId: m.tenantId,
        migrationId: m.id,
        action: 'migration_failed',
        detail: { reason },
        at: now,
      });
    },
  });
}

/** Copy: the due files, a few at a time; then the next step (more files, a retry timer, or cutover). */
async function copyStep(deps: StorageDeps, job: RunningJob<MigrationJobPayload>, m: StorageMigration): Promise<void> {
  const db = deps.database.db;
  const due = await deps.files.due(db, m.tenantId, m.id, deps.clock.now(), FILES_PER_STEP);
  if (due.length === 0) {
    const nextAt = await deps.files.nextDueAt(db, m.tenantId, m.id);
    if (nextAt !== null) return finish(deps, job, { next: nextAt });
    const now = deps.clock.now();
    return finish(deps, job, {
      next: 'now',
      work: (trx) =>
        deps.migrations.transition(trx, m.id, ['in_progress'], { phase: 'cutover' }, now).then(() => undefined),
    });
  }
  await deps.migrations.update(deps.database.db, m.id, { currentFile: due[0]!.storageKey }, deps.clock.now());
  const cancelled = await copyFiles(deps, m, due, await copyRoute(deps, m, job.attempt > 1), job.signal);
  return finish(deps, job, cancelled ? {} : { next: 'now' });
}

/** The source first, then any older store the tenant still reads from; never the target itself. */
async function copyRoute(deps: StorageDeps, m: StorageMigration, rerun: boolean): Promise<CopyRoute> {
  const placement = (await deps.tenantStorage.find(deps.database.db, m.tenantId)) ?? SHARED_ONLY;
  const history = await deps.migrations.listForTenant(deps.database.db, m.tenantId);
  const mayHoldCopies = rerun || history.some((h) => h.id !== m.id && h.targetProvider === m.targetProvider);
  const order = [m.sourceProvider, ...placement.read].filter(
    (p, i, all) => p !== m.targetProvider && all.indexOf(p) === i,
  );
  const storeOf = (p: ProviderName) => deps.stores.storeFor(m.tenantId, p, placement.customerVersion);
  return {
    sources: await Promise.all(order.map(storeOf)),
    target: await storeOf(m.targetProvider),
    mayHoldCopies,
    uploads: new Semaphore(deps.config.copyConcurrency),
  };
}

/**
 * Copies with bounded concurrency (STORAGE_MIGRATION_CONCURRENCY uploads) within the step's time budget,
 * looking (at most every CANCEL_CHECK_MS, shared by the lanes) whether the migration was cancelled;
 * answers true when it was.
 */
async function copyFiles(
  deps: StorageDeps,
  m: StorageMigration,
  files: MigrationFile[],
  route: CopyRoute,
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = deps.clock.now() + STEP_BUDGET_MS;
  let cancelled = false;
  let checkedAt = 0;
  const stop = async () => {
    // The worker stopping or losing the lease aborts the signal: the step ends, the files left stay pending.
    if (cancelled || signal.aborted || deps.clock.now() > deadline) return true;
    if (deps.clock.now() - checkedAt >= CANCEL_CHECK_MS) {
      checkedAt = deps.clock.now();
      cancelled = (await deps.migrations.findById(deps.database.db, m.id))?.status !== 'in_progress';
    }
    return cancelled;
  };
  // Twice as many lanes as uploads: while a lane records its file (or checks a copy already there), another uploads.
  await eachLimited(files, deps.config.copyConcurrency * 2, (file) => copyFileStep(deps, m, file, route), stop);
  return cancelled;
}
