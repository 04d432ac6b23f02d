import type { Database } from '../../../db/database.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../../db/db-errors.ts';
import { type AppError, errors } from '../../../lib/errors.ts';
import { acceptName } from '../../../lib/names.ts';
import type { JobQueue } from '../../../jobs/job-queue.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { visibilityScope } from '../access/access.repository.ts';
import { assertMayCreate, assertTenantAdmin } from '../access/document-access.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { removeDocuments } from '../document-removal.ts';
import type { DocumentsRepository } from '../documents.repository.ts';
import type { LegalHoldGuard } from '../legal-hold-guard.ts';
import { assertMayChangeFolder, assertMayFileInto } from './folder-access.ts';
import type { Folder, FoldersRepository, ParentFilter } from './folders.repository.ts';

export const DEFAULT_FOLDER_COLOR = '#6B7280';
export const DEFAULT_FOLDER_ICON = 'folder';

/** A folder with, when asked for, the documents directly inside that the caller can see. */
export interface FolderWithCount extends Folder {
  visibleDocumentCount?: number;
}

/** docs/api-decisions.md §6 and "Names": the name rule of src/lib/names.ts, and no `/`. */
function checkName(name: string): string {
  return acceptName(name, 'name', ['/']);
}

/** Folder use cases: nested folders with unique sibling names, moves, and (force) deletion. */
export class FoldersService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    jobs: JobQueue;
    folders: FoldersRepository;
    documents: DocumentsRepository;
    guard: LegalHoldGuard;
  };
  constructor(deps: FoldersService['deps']) {
    this.deps = deps;
  }

  async create(
    auth: AuthContext,
    input: { name: string; parentId: string | null; color?: string; icon?: string },
  ): Promise<FolderWithCount> {
    assertMayCreate(auth, 'folders');
    const { database, clock, folders } = this.deps;
    const name = checkName(input.name);
    const tenantId = auth.tenant.id;
    const now = clock.now();
    const folder: Folder = {
      id: newId(now),
      tenantId,
      parentId: input.parentId,
      name,
      color: input.color ?? DEFAULT_FOLDER_COLOR,
      icon: input.icon ?? DEFAULT_FOLDER_ICON,
      createdBy: auth.userId,
      documentCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.#uniquely(name, () =>
      database.db.transaction().execute(async (trx) => {
        if (input.parentId !== null && !(await folders.exists(trx, tenantId, input.parentId)))
          throw errors.notFound('folder', input.parentId);
        if (await folders.siblingNamed(trx, tenantId, input.parentId, name)) throw this.#nameTaken(name);
        await folders.insert(trx, folder);
      }),
    );
    return { ...folder, visibleDocumentCount: 0 };
  }

  async get(auth: AuthContext, id: string): Promise<FolderWithCount> {
    const { database, folders } = this.deps;
    const folder = await folders.findById(database.db, auth.tenant.id, id);
    if (!folder) throw errors.notFound('folder', id);
    const counts = await this.#documentCounts(auth, [folder], [id]);
    return { ...folder, visibleDocumentCount: counts.get(id) ?? 0 };
  }

  /**
   * For modules that file things into a folder the caller names (an import's `target_folder_id`):
   * 404 unless it is a folder of the caller's tenant, 403 for callers who may not file into folders.
   */
  async assertMayFileInto(auth: AuthContext, folderId: string): Promise<void> {
    if (!(await this.deps.folders.exists(this.deps.database.db, auth.tenant.id, folderId)))
      throw errors.notFound('folder', folderId);
    assertMayFileInto(auth);
  }

  /** docs/api-decisions.md §9: no parent = every folder flat; `root` = top level; an id = its children. */
  async list(auth: AuthContext, parent: string | undefined, withCounts: boolean): Promise<FolderWithCount[]> {
    const { database, folders } = this.deps;
    const tenantId = auth.tenant.id;
    const filter: ParentFilter =
      parent === undefined
        ? { kind: 'all' }
        : parent === 'root'
          ? { kind: 'root' }
          : { kind: 'children', parentId: parent };
    if (filter.kind === 'children' && !(await folders.exists(database.db, tenantId, filter.parentId))) {
      throw errors.notFound('folder', filter.parentId);
    }
    const found = await folders.list(database.db, tenantId, filter);
    if (!withCounts) return found;
    const counts = await this.#documentCounts(auth, found, filter.kind === 'all' ? 'all' : found.map((f) => f.id));
    return found.map((f) => ({ ...f, visibleDocumentCount: counts.get(f.id) ?? 0 }));
  }

  /**
   * Documents directly inside each folder that the caller can see. Tenant administrators see all,
   * so their counts are the ones the folder rows keep (triggers on `documents`); other callers'
   * are counted from their `document_visibility` rows, which carry the folder.
   */
  async #documentCounts(auth: AuthContext, found: Folder[], ids: string[] | 'all'): Promise<Map<string, number>> {
    const scope = visibilityScope(auth);
    if (scope === null) return new Map(found.map((f) => [f.id, f.documentCount]));
    return this.deps.folders.visibleDocumentCounts(this.deps.database.db, auth.tenant.id, ids, scope);
  }

  /** Partial update; `parentId` moves the folder (null = top level), never into its own subtree. */
  async update(
    auth: AuthContext,
    id: string,
    patch: { name?: string; color?: string; icon?: string; parentId?: string | null },
  ): Promise<FolderWithCount> {
    const { database, clock, folders } = this.deps;
    const tenantId = auth.tenant.id;
    const name = patch.name === undefined ? undefined : checkName(patch.name);
    await this.#uniquely(name ?? '', () =>
      database.db.transaction().execute(async (trx) => {
        const current = await folders.findById(trx, tenantId, id);
        if (!current) throw errors.notFound('folder', id);
        assertMayChangeFolder(auth, current);
        const parentId = patch.parentId === undefined ? current.parentId : patch.parentId;
        if (patch.parentId !== undefined && patch.parentId !== null) {
          if (!(await folders.exists(trx, tenantId, patch.parentId))) throw errors.notFound('folder', patch.parentId);
          const subtree = await folders.subtreeIds(trx, tenantId, id);
          if (subtree.includes(patch.parentId))
            throw errors.field('parent_id', 'a folder cannot be moved into itself or its own subfolders');
        }
        if (patch.parentId !== undefined && patch.parentId !== current.parentId)
          await this.deps.guard.assertMovable(trx, tenantId, { folderId: id }, patch.parentId);
        const finalName = name ?? current.name;
        if (await folders.siblingNamed(trx, tenantId, parentId, finalName, id)) throw this.#nameTaken(finalName);
        await folders.update(trx, tenantId, id, {
          name,
          color: patch.color,
          icon: patch.icon,
          parentId: patch.parentId,
          updatedAt: clock.now(),
        });
      }),
    );
    return this.get(auth, id);
  }

  /** Without force only an empty folder goes (400 folder_not_empty); with force the whole subtree and its documents. */
  async delete(auth: AuthContext, id: string, force: boolean): Promise<void> {
    const notEmpty = () => errors.folderNotEmpty(id);
    try {
      await this.#deleteInTransaction(auth, id, force, notEmpty);
    } catch (error) {
      // A document or subfolder added by a concurrent request after the checks (PostgreSQL runs
      // writers side by side) makes the delete violate a foreign key: answer what is now true.
      if (!isForeignKeyViolation(error)) throw error;
      throw force ? errors.conflict('The folder changed while it was being deleted; try again') : notEmpty();
    }
  }

  async #deleteInTransaction(auth: AuthContext, id: string, force: boolean, notEmpty: () => AppError): Promise<void> {
    const { database, folders, documents, jobs } = this.deps;
    const tenantId = auth.tenant.id;
    await database.db.transaction().execute(async (trx) => {
      const current = await folders.findById(trx, tenantId, id);
      if (!current) throw errors.notFound('folder', id);
      assertMayChangeFolder(auth, current);
      if (force) assertTenantAdmin(auth, 'delete a folder with its contents (force=true)');
      if (!force) {
        if ((await folders.hasChildren(trx, tenantId, id)) || (await documents.countInFolder(trx, tenantId, id)) > 0) {
          throw notEmpty();
        }
        await this.deps.guard.assertDeletable(trx, tenantId, { folderIds: [id] });
        await folders.deleteMany(trx, tenantId, [id]);
        return;
      }
      const subtree = await folders.subtreeIds(trx, tenantId, id);
      const docs = await documents.inFolders(trx, tenantId, subtree);
      await this.deps.guard.assertDeletable(trx, tenantId, { folderIds: subtree, documentIds: docs.map((d) => d.id) });
      await removeDocuments(trx, { documents, jobs }, tenantId, docs);
      await folders.deleteMany(trx, tenantId, subtree);
    });
  }

  #nameTaken(name: string): AppError {
    return errors.conflict(`A folder named "${name}" already exists here`, { field: 'name' });
  }

  /** Runs a write, turning a lost race on the sibling-name index into the same 409. */
  async #uniquely<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw this.#nameTaken(name);
      throw error;
    }
  }
}
