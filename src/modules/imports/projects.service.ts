import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { isTenantAdmin } from '../../domain/roles.ts';
import { requireFeature } from '../../domain/tier-gate.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CredentialBox } from './credential-box.ts';
import { enqueueLanes, IMPORT_JOBS, type ScanPayload } from './import-job-kinds.ts';
import { type ProjectStatus, TERMINAL_STATUSES } from './imports.tables.ts';
import { countFinishedSince, type ImportItem, type ItemFilter, type ItemsRepository } from './items.repository.ts';
import { changesScan, type ConfigInput, isComplete, mergeConfig } from './project-config.ts';
import { estimateCompletion, progressPercent } from './progress.ts';
import type { ImportProject, ImportProjectPatch, ProjectsRepository } from './projects.repository.ts';

/** A project with its item counts, for presenting. */
export interface ProjectDetail {
  project: ImportProject;
  counts: { total: number; imported: number; failed: number; skipped: number; pending: number; percent: number };
}

export interface Progress {
  status: ProjectStatus;
  counts: ProjectDetail['counts'];
  bytes: { total: number; imported: number };
  currentItem: string | null;
  startedAt: number | null;
  estimatedCompletion: number | null;
}

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  projects: ProjectsRepository;
  items: ItemsRepository;
  box: CredentialBox;
  /** The library's folder rules: whether the caller may file documents into a `target_folder_id`. */
  folders: Pick<ModuleServices['folders'], 'assertMayFileInto'>;
  lanes: number;
  /** In the deleting transaction, before the project's rows go: what other parts hold for it (agent tasks). */
  beforeDelete: (trx: Executor, tenantId: string, projectId: string) => Promise<void>;
}

/** Import projects (spec "Import project", contract §12): configuration, the state machine, progress. */
export class ProjectsService {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async create(
    auth: AuthContext,
    input: { name: string; description?: string; source_type: string; config?: ConfigInput },
  ): Promise<ProjectDetail> {
    assertAllowed(auth);
    const { database, clock, projects, box } = this.deps;
    await this.#checkTarget(auth, input.config?.target_folder_id);
    const config = mergeConfig(null, input.config ?? {});
    const credentials = input.config?.credentials ? await box.seal(input.config.credentials) : null;
    const now = clock.now();
    const project: ImportProject = {
      id: newId(now),
      tenantId: auth.tenant.id,
      name: input.name.trim(),
      description: input.description ?? null,
      sourceType: input.source_type,
      status: isComplete(config, credentials !== null) ? 'configured' : 'draft',
      config,
      sealedCredentials: credentials,
      error: null,
      createdBy: auth.userId,
      scannedAt: null,
      startedAt: null,
      completedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await projects.insert(database.db, project);
    return this.#detail(database.db, project);
  }

  async list(
    auth: AuthContext,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ProjectDetail[]; total: number }> {
    assertAllowed(auth);
    const { database, projects } = this.deps;
    const { rows, total } = await projects.list(database.db, auth.tenant.id, page);
    return { rows: await Promise.all(rows.map((r) => this.#detail(database.db, r))), total };
  }

  async get(auth: AuthContext, id: string): Promise<ProjectDetail> {
    return this.#detail(this.deps.database.db, await this.#find(this.deps.database.db, auth, id));
  }

  /** Contract §12: while `draft`, `configured` or `ready`; a change to what the scan finds makes a `ready` project scan again. */
  async update(
    auth: AuthContext,
    id: string,
    input: { name?: string; description?: string | null; config?: ConfigInput },
  ): Promise<ProjectDetail> {
    const { database, clock, projects, items, box } = this.deps;
    if (typeof input.config?.target_folder_id === 'string') {
      // The project's 404 (and the role's 403) come before anything about the folder.
      await findProject(projects, database.db, auth, id);
      await this.#checkTarget(auth, input.config.target_folder_id);
    }
    // Sealed before the transaction: the key may have to be read or made, on a connection of its own.
    const sealed = input.config?.credentials ? await box.seal(input.config.credentials) : null;
    const project = await database.db.transaction().execute(async (trx) => {
      const current = await this.#find(trx, auth, id);
      assertStatus(current, ['draft', 'configured', 'ready'], 'be updated');
      const before = current.config;
      const config = input.config ? mergeConfig(before, input.config) : before;
      const credentials = sealed ?? current.sealedCredentials;
      const stale = current.status === 'ready' && changesScan(before, config);
      const complete = isComplete(config, credentials !== null);
      const status: ProjectStatus = !complete ? 'draft' : current.status === 'ready' && !stale ? 'ready' : 'configured';
      if (status !== 'ready') await items.clear(trx, auth.tenant.id, id);
      const patch: ImportProjectPatch = {
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        config,
        sealedCredentials: credentials,
        status,
        ...(status !== 'ready' ? { scannedAt: null } : {}),
        updatedAt: clock.now(),
      };
      await projects.update(trx, auth.tenant.id, id, patch);
      return { ...current, ...patch };
    });
    return this.#detail(database.db, project);
  }

  /** Spec: only in terminal states; the imported documents stay. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    const { database, projects } = this.deps;
    await database.db.transaction().execute(async (trx) => {
      const current = await this.#find(trx, auth, id);
      assertStatus(
        current,
        TERMINAL_STATUSES,
        'be deleted (only completed, completed_with_errors, cancelled or failed projects can)',
      );
      await this.deps.beforeDelete(trx, auth.tenant.id, id);
      await projects.delete(trx, auth.tenant.id, id);
    });
  }

  /** configured (or ready / failed: scan again) -> scanning, with the scan job. */
  async scan(auth: AuthContext, id: string): Promise<ProjectDetail> {
    const { jobs, items } = this.deps;
    return this.#move(auth, id, ['configured', 'ready', 'failed'], 'scan', async (trx) => {
      await items.clear(trx, auth.tenant.id, id);
      const payload: ScanPayload = { tenantId: auth.tenant.id, projectId: id };
      await jobs.enqueue(trx, IMPORT_JOBS.scan, payload, { tenantId: auth.tenant.id, uniqueKey: `imports.scan:${id}` });
      return { status: 'scanning', error: null, scannedAt: null, startedAt: null, completedAt: null };
    });
  }

  /** ready -> in_progress: the lanes start. */
  async start(auth: AuthContext, id: string): Promise<ProjectDetail> {
    return this.#move(auth, id, ['ready'], 'start', async (trx) => {
      await enqueueLanes(this.deps.jobs, trx, { tenantId: auth.tenant.id, projectId: id }, this.deps.lanes);
      return { status: 'in_progress', startedAt: this.deps.clock.now() };
    });
  }

  /** in_progress -> paused: each lane stops after its current file. */
  async pause(auth: AuthContext, id: string): Promise<ProjectDetail> {
    return this.#move(auth, id, ['in_progress'], 'pause', async () => ({ status: 'paused' }));
  }

  /** paused -> in_progress: the lanes continue with the files still pending. */
  async resume(auth: AuthContext, id: string): Promise<ProjectDetail> {
    return this.#move(auth, id, ['paused'], 'resume', async (trx) => {
      await enqueueLanes(this.deps.jobs, trx, { tenantId: auth.tenant.id, projectId: id }, this.deps.lanes);
      return { status: 'in_progress' };
    });
  }

  /** in_progress or paused -> cancelled: imported files stay, the rest are not imported. */
  async cancel(auth: AuthContext, id: string): Promise<ProjectDetail> {
    return this.#move(auth, id, ['in_progress', 'paused'], 'cancel', async () => ({
      status: 'cancelled',
      completedAt: this.deps.clock.now(),
    }));
  }

  async progress(auth: AuthContext, id: string): Promise<Progress> {
    const { database, items, clock } = this.deps;
    const db = database.db;
    const project = await this.#find(db, auth, id);
    const { counts } = await this.#detail(db, project);
    const current =
      project.status === 'in_progress' || project.status === 'paused'
        ? await items.current(db, auth.tenant.id, id)
        : null;
    const now = clock.now();
    const finished =
      project.startedAt === null ? 0 : await countFinishedSince(db, auth.tenant.id, id, project.startedAt);
    return {
      status: project.status,
      counts,
      bytes: await items.bytes(db, auth.tenant.id, id),
      currentItem: current?.path ?? null,
      startedAt: project.startedAt,
      estimatedCompletion:
        project.status === 'in_progress'
          ? estimateCompletion({
              now,
              startedAt: project.startedAt,
              finishedSinceStart: finished,
              pending: counts.pending,
            })
          : null,
    };
  }

  async items(
    auth: AuthContext,
    id: string,
    filter: ItemFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ImportItem[]; total: number }> {
    const db = this.deps.database.db;
    await this.#find(db, auth, id);
    return this.deps.items.list(db, auth.tenant.id, id, filter, page);
  }

  /** One state change: checked and applied in one transaction with its jobs; a lost race is a 409 too. */
  async #move(
    auth: AuthContext,
    id: string,
    from: readonly ProjectStatus[],
    action: string,
    apply: (trx: Executor, project: ImportProject) => Promise<ImportProjectPatch & { status: ProjectStatus }>,
  ): Promise<ProjectDetail> {
    const { database, projects, clock } = this.deps;
    const project = await database.db.transaction().execute(async (trx) => {
      const current = await this.#find(trx, auth, id);
      assertStatus(current, from, action);
      const patch = { ...(await apply(trx, current)), updatedAt: clock.now() };
      if (!(await projects.transition(trx, auth.tenant.id, id, from, patch))) throw notAllowed(current, action);
      return { ...current, ...patch };
    });
    return this.#detail(database.db, project);
  }

  /** A named `target_folder_id` must be a folder of the caller's tenant they may file into (404 / 403, as an upload's `folder_id`). */
  async #checkTarget(auth: AuthContext, folderId: string | null | undefined): Promise<void> {
    if (typeof folderId === 'string') await this.deps.folders.assertMayFileInto(auth, folderId);
  }

  #find(db: Executor, auth: AuthContext, id: string): Promise<ImportProject> {
    return findProject(this.deps.projects, db, auth, id);
  }

  async #detail(db: Executor, project: ImportProject): Promise<ProjectDetail> {
    const c = await this.deps.items.counts(db, project.tenantId, project.id);
    const total = c.pending + c.imported + c.failed + c.skipped;
    return {
      project,
      counts: {
        total,
        imported: c.imported,
        failed: c.failed,
        skipped: c.skipped,
        pending: c.pending,
        percent: progressPercent(c, total),
      },
    };
  }
}

/** The caller's project (404 when another tenant's or gone), after the tier and role checks. */
export async function findProject(
  projects: ProjectsRepository,
  db: Executor,
  auth: AuthContext,
  id: string,
): Promise<ImportProject> {
  assertAllowed(auth);
  const project = await projects.find(db, auth.tenant.id, id);
  if (!project) throw errors.notFound('import_project', id);
  return project;
}

/** Team tier and above (403 `TIER_LIMIT_EXCEEDED`), and tenant administrators (owner, admin, API keys). */
function assertAllowed(auth: AuthContext): void {
  requireFeature(auth, 'importProjects');
  if (!isTenantAdmin(auth)) throw errors.forbidden('Only owners, admins and API keys manage import projects');
}

function assertStatus(project: ImportProject, allowed: readonly ProjectStatus[], action: string): void {
  if (!allowed.includes(project.status)) throw notAllowed(project, action);
}

function notAllowed(project: ImportProject, action: string) {
  return errors.conflict(`A project in status ${project.status} cannot ${action}`, { status: project.status });
}
