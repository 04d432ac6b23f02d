import type { Database } from '../../db/database.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { DriveAccess } from './drive-access.ts';
import type { DriveEntry, DriveSession } from './drive-client.ts';
import { DriveError } from './drive-errors.ts';
import { FOLDER_MIME_TYPE, SHORTCUT_MIME_TYPE } from './export-formats.ts';
import type { ScanPayload } from './import-job-kinds.ts';
import type { ImportFolder, ImportItem, ItemsRepository } from './items.repository.ts';
import type { ProjectConfig } from './project-config.ts';
import type { ImportProject, ProjectsRepository } from './projects.repository.ts';
import { ScanFilter } from './scan-filters.ts';

interface FolderToWalk {
  id: string;
  name: string;
  parentId: string | null;
  path: string;
}

interface Deps {
  database: Database;
  clock: Clock;
  logger: Logger;
  projects: ProjectsRepository;
  items: ItemsRepository;
  drive: DriveAccess;
}

/**
 * The scan job: walks each folder of `folder_ids` and every subfolder (shortcuts to folders
 * followed), page by page, recording every file as an item, pending or skipped with its reason. A
 * folder reached twice is walked once and a file reached twice is recorded once (unique per source
 * file), so a run that dies and is retried simply continues over what it had recorded. It ends by
 * moving the project to `ready` in the same transaction that completes the job.
 */
export class Scanner {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async run(job: RunningJob<ScanPayload>): Promise<void> {
    const { database, projects, clock } = this.deps;
    const { tenantId, projectId } = job.payload;
    const project = await projects.find(database.db, tenantId, projectId);
    if (project?.status !== 'scanning') return;
    const drive = await this.deps.drive.open(project, job.signal);
    try {
      await this.#walk(project, project.config, drive.session);
    } catch (error) {
      if (!(error instanceof DriveError)) throw error;
      // A rate limit or an outage is worth another run; a missing folder or refused credentials is not.
      const hopeless = error.permanent || error.status === 401 || error.status === 403 || error.status === 400;
      if (!hopeless && job.attempt < job.maxAttempts) throw error;
      await database.db.transaction().execute(async (trx) => {
        await projects.transition(trx, tenantId, projectId, ['scanning'], {
          status: 'failed',
          error: error.message,
          updatedAt: clock.now(),
        });
        await job.completeIn(trx);
      });
      return;
    } finally {
      await drive.saveRefreshed();
    }
    await database.db.transaction().execute(async (trx) => {
      const now = clock.now();
      await projects.transition(trx, tenantId, projectId, ['scanning'], {
        status: 'ready',
        scannedAt: now,
        updatedAt: now,
      });
      await job.completeIn(trx);
    });
  }

  async #walk(project: ImportProject, config: ProjectConfig, drive: DriveSession): Promise<void> {
    const filter = new ScanFilter(config.filters, config.export_formats);
    const queue: FolderToWalk[] = [];
    for (const id of config.folder_ids) {
      const root = await drive.folder(id);
      if (root.mimeType !== FOLDER_MIME_TYPE)
        throw new DriveError(`${id} is not a folder`, { status: 400, reason: 'notAFolder', retryAfterMs: null });
      queue.push({ id, name: root.name, parentId: null, path: root.name });
    }
    const seen = new Set<string>();
    for (let folder = queue.shift(); folder; folder = queue.shift()) {
      if (seen.has(folder.id)) continue;
      seen.add(folder.id);
      await this.#record([], [importFolder(project, folder)]);
      for await (const page of drive.children(folder.id, config.filters.include_shared)) {
        const files: ImportItem[] = [];
        for (const entry of page) {
          const target = await resolveShortcut(drive, entry);
          if (target === null) continue;
          if (target.mimeType === FOLDER_MIME_TYPE) {
            queue.push({ id: target.id, name: entry.name, parentId: folder.id, path: `${folder.path}/${entry.name}` });
          } else {
            files.push(this.#item(project, folder, target, filter));
          }
        }
        await this.#record(files, []);
      }
    }
  }

  #item(project: ImportProject, folder: FolderToWalk, entry: DriveEntry, filter: ScanFilter): ImportItem {
    const now = this.deps.clock.now();
    const path = `${folder.path}/${entry.name}`;
    const skipReason = filter.skipReason({
      name: entry.name,
      path,
      mimeType: entry.mimeType,
      size: entry.size,
      ownedByMe: entry.ownedByMe,
    });
    return {
      id: newId(now),
      tenantId: project.tenantId,
      projectId: project.id,
      sourceFileId: entry.id,
      sourceFolderId: folder.id,
      name: entry.name,
      path,
      mimeType: entry.mimeType,
      size: entry.size,
      status: skipReason ? 'skipped' : 'pending',
      skipReason,
      error: null,
      attempts: 0,
      nextAttemptAt: 0,
      lane: null,
      documentId: null,
      finishedAt: null,
      createdAt: now,
      updatedAt: now,
      settledAt: null,
      settledSeq: null,
    };
  }

  async #record(files: ImportItem[], folders: ImportFolder[]): Promise<void> {
    const { database, items } = this.deps;
    if (files.length === 0 && folders.length === 0) return;
    await database.db.transaction().execute(async (trx) => {
      await items.insertFolders(trx, folders);
      await items.insertMany(trx, files);
    });
  }
}

function importFolder(project: ImportProject, folder: FolderToWalk): ImportFolder {
  return {
    tenantId: project.tenantId,
    projectId: project.id,
    sourceFolderId: folder.id,
    parentSourceId: folder.parentId,
    name: folder.name,
    folderId: null,
  };
}

/** A shortcut stands for its target (a folder to walk, or a file, read for its type and size); a dangling one is dropped. */
async function resolveShortcut(drive: DriveSession, entry: DriveEntry): Promise<DriveEntry | null> {
  if (entry.mimeType !== SHORTCUT_MIME_TYPE) return entry;
  if (!entry.shortcut) return null;
  if (entry.shortcut.targetMimeType === FOLDER_MIME_TYPE)
    return { ...entry, id: entry.shortcut.targetId, mimeType: FOLDER_MIME_TYPE };
  try {
    return await drive.folder(entry.shortcut.targetId);
  } catch (error) {
    if (error instanceof DriveError && error.status === 404) return null;
    throw error;
  }
}
