import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { AppError } from '../../lib/errors.ts';
import { MAX_NAME_LENGTH, nameKey, sanitiseName, truncateName } from '../../lib/names.ts';
import type { FoldersService } from '../documents/index.ts';
import type { ItemsRepository } from './items.repository.ts';

/**
 * Recreates the source folder tree in the library, under the project's `target_folder_id`, as
 * files need it: each source folder once, remembered in `import_folders`. A folder of that name
 * already there (made by an earlier, interrupted run, or by someone) is used rather than doubled.
 */
export class FolderTree {
  private readonly deps: { database: Database; folders: FoldersService; items: ItemsRepository };
  constructor(deps: FolderTree['deps']) {
    this.deps = deps;
  }

  /** The library folder for a source folder, made (with its parents) when missing. */
  async ensure(
    auth: AuthContext,
    project: { id: string; targetFolderId: string | null },
    sourceFolderId: string,
  ): Promise<string> {
    const { database, items } = this.deps;
    const mapping = await items.folder(database.db, auth.tenant.id, project.id, sourceFolderId);
    if (!mapping) throw new Error(`import: source folder ${sourceFolderId} was not recorded by the scan`);
    if (mapping.folderId) return mapping.folderId;
    const parentId =
      mapping.parentSourceId === null
        ? project.targetFolderId
        : await this.ensure(auth, project, mapping.parentSourceId);
    const folderId = await this.#makeOrFind(auth, parentId, folderName(mapping.name));
    await items.setFolderTarget(database.db, auth.tenant.id, project.id, sourceFolderId, folderId);
    return folderId;
  }

  async #makeOrFind(auth: AuthContext, parentId: string | null, name: string): Promise<string> {
    const { folders } = this.deps;
    try {
      return (await folders.create(auth, { name, parentId })).id;
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 409) throw error;
      const siblings = await folders.list(auth, parentId ?? 'root', false);
      const existing = siblings.find((f) => nameKey(f.name) === nameKey(name));
      if (!existing) throw error;
      return existing.id;
    }
  }
}

/**
 * A Drive folder's name as a library folder's (src/lib/names.ts): Drive allows `/`, controls and
 * invisible characters; `/` becomes `-`, the others are dropped, as for imported file names.
 */
function folderName(name: string): string {
  const clean = truncateName(sanitiseName(name.replaceAll('/', '-')), MAX_NAME_LENGTH).trim();
  return clean === '' ? 'Untitled folder' : clean;
}
