import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { TenantDirectory } from '../../domain/tenant.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { JobLostError, type RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { DocumentUploadsService, ImportOutcome } from '../documents/index.ts';
import type { DriveAccess } from './drive-access.ts';
import { importedFileName, retrievalFor } from './export-formats.ts';
import type { FolderTree } from './folder-tree.ts';
import { IMPORT_JOBS, type LanePayload, laneKey } from './import-job-kinds.ts';
import type { ImportItem, ItemsRepository } from './items.repository.ts';
import { importAuth } from './job-auth.ts';
import type { ImportProject, ProjectsRepository } from './projects.repository.ts';
import { nextAttempt } from './retry-policy.ts';

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  tenants: TenantDirectory;
  projects: ProjectsRepository;
  items: ItemsRepository;
  drive: DriveAccess;
  folders: FolderTree;
  uploads: DocumentUploadsService;
  retryDelaysMs: readonly number[];
  /** In the transaction that finishes the import: the agents that run at the end (AgentScheduler.importEnded). */
  importEnded: (trx: Executor, tenantId: string, projectId: string) => Promise<void>;
}

/** How one run of a lane ended for its file. */
type FileResult = { kind: 'stored'; outcome: ImportOutcome } | { kind: 'failed'; error: Error };

/**
 * One lane of a project's import (the project runs `IMPORT_CONCURRENCY` of them): each run takes
 * one due file, streams it from Drive into the library as a document (exported first when
 * Google-native), and in the transaction that records the document also marks the file, completes
 * this run and queues the lane's next run. A run killed mid-file leaves the file held by its lane;
 * the retried run takes it again, and since nothing was committed, no document is doubled. A lane
 * whose project is no longer `in_progress` (paused, cancelled) stops before taking a file; the last
 * lane to find nothing pending completes the project.
 */
export class ImportLane {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async run(job: RunningJob<LanePayload>): Promise<void> {
    const { database, projects, items, clock } = this.deps;
    const { tenantId, projectId, lane } = job.payload;
    const db = database.db;
    const project = await projects.find(db, tenantId, projectId);
    if (project?.status !== 'in_progress') {
      // Paused or cancelled: what this lane held goes back to the pool for whoever resumes.
      const held = project ? await items.heldBy(db, tenantId, projectId, lane) : null;
      if (held) await items.update(db, tenantId, held.id, { lane: null, updatedAt: clock.now() });
      return;
    }
    const auth = await importAuth(this.deps.tenants, tenantId, project.createdBy);
    if (!auth) return;
    const item = await this.#take(project, lane);
    if (!item) return this.#idle(job);
    const result = await this.#importFile(job, auth, project, item);
    if (result.kind === 'failed') await this.#recordFailure(job, item, result.error);
  }

  /** The file this lane already holds (its previous run died), else the next due one it can claim. */
  async #take(project: ImportProject, lane: number): Promise<ImportItem | null> {
    const { database, items, clock } = this.deps;
    const held = await items.heldBy(database.db, project.tenantId, project.id, lane);
    if (held) return held;
    for (let tries = 0; tries < 5; tries++) {
      const next = await items.nextDue(database.db, project.tenantId, project.id, clock.now());
      if (!next) return null;
      if (await items.claim(database.db, project.tenantId, next.id, lane, clock.now())) return next;
    }
    return null;
  }

  /** Nothing due: wait for the earliest retry, or, when nothing is pending at all, finish the project. */
  async #idle(job: RunningJob<LanePayload>): Promise<void> {
    const { database, items, projects, clock } = this.deps;
    const { tenantId, projectId } = job.payload;
    await database.db.transaction().execute(async (trx) => {
      await job.completeIn(trx);
      const due = await items.earliestPending(trx, tenantId, projectId);
      if (due !== null) return this.#next(trx, job, Math.max(due, clock.now()));
      if (await items.anyPending(trx, tenantId, projectId)) return;
      const { failed } = await items.counts(trx, tenantId, projectId);
      const now = clock.now();
      const status = failed > 0 ? 'completed_with_errors' : 'completed';
      if (
        await projects.transition(trx, tenantId, projectId, ['in_progress'], {
          status,
          completedAt: now,
          updatedAt: now,
        })
      ) {
        await this.deps.importEnded(trx, tenantId, projectId);
      }
    });
  }

  async #importFile(
    job: RunningJob<LanePayload>,
    auth: AuthContext,
    project: ImportProject,
    item: ImportItem,
  ): Promise<FileResult> {
    const { items, clock } = this.deps;
    const { config } = project;
    const retrieval = retrievalFor(item.mimeType, config.export_formats);
    const drive = await this.deps.drive.open(project, job.signal);
    try {
      const folderId = await this.deps.folders.ensure(
        auth,
        { id: project.id, targetFolderId: config.target_folder_id },
        item.sourceFolderId,
      );
      const stream =
        retrieval.kind === 'export'
          ? await drive.session.export(item.sourceFileId, retrieval.mimeType)
          : await drive.session.download(item.sourceFileId);
      const filename = importedFileName(item.name, item.mimeType, retrieval);
      const outcome = await this.deps.uploads.importFile(
        auth,
        { filename, stream },
        {
          folderId,
          enableAi: config.enable_ai,
          skipDuplicates: true,
          commit: async (trx, done) => {
            const now = clock.now();
            await items.update(trx, item.tenantId, item.id, {
              ...(done.document
                ? { status: 'imported', documentId: done.document.id }
                : { status: 'skipped', skipReason: 'duplicate', documentId: done.duplicateOf }),
              attempts: item.attempts + 1,
              error: null,
              lane: null,
              finishedAt: now,
              updatedAt: now,
            });
            await job.completeIn(trx);
            await this.#next(trx, job, now);
          },
        },
      );
      return { kind: 'stored', outcome };
    } catch (error) {
      // A lost lease must not record anything; every other failure (Drive, the library's checks, a
      // transfer cut off) is this file's, retried on the file's own schedule.
      if (error instanceof JobLostError || !(error instanceof Error)) throw error;
      return { kind: 'failed', error };
    } finally {
      await drive.saveRefreshed();
    }
  }

  /** A failed try: due again after the retry delay (Drive's Retry-After when longer), or failed for good. */
  async #recordFailure(job: RunningJob<LanePayload>, item: ImportItem, error: Error): Promise<void> {
    const { database, items, clock } = this.deps;
    const now = clock.now();
    const attempts = item.attempts + 1;
    const retryAt = nextAttempt({ error, attempts, now, delaysMs: this.deps.retryDelaysMs });
    await database.db.transaction().execute(async (trx) => {
      await items.update(trx, item.tenantId, item.id, {
        attempts,
        error: error.message,
        lane: null,
        updatedAt: now,
        ...(retryAt === null ? { status: 'failed', finishedAt: now } : { nextAttemptAt: retryAt }),
      });
      await job.completeIn(trx);
      await this.#next(trx, job, now);
    });
  }

  /** The lane's next run (this run is completed in the same transaction, so its unique key is free again). */
  async #next(trx: Executor, job: RunningJob<LanePayload>, runAt: number): Promise<void> {
    await this.deps.jobs.enqueue(trx, IMPORT_JOBS.lane, job.payload, {
      tenantId: job.payload.tenantId,
      runAt,
      uniqueKey: laneKey(job.payload.projectId, job.payload.lane),
    });
  }
}
