import { ConflictError, type DocuVault } from '@docuvault/sdk';

interface FolderNode {
  id: string;
  name: string;
  parent_id: string | null;
}

/**
 * The caller's folders as paths (`/Invoices/2025`), built from one `GET /folders` (flat, with
 * parent ids); `ensure` creates what is missing, one level at a time, sharing work between
 * concurrent callers and tolerating a folder another process created meanwhile (409).
 */
export class FolderPaths {
  readonly #client: DocuVault;
  #byPath = new Map<string, string>();
  #pending = new Map<string, Promise<string>>();

  private constructor(client: DocuVault) {
    this.#client = client;
  }

  static async load(client: DocuVault): Promise<FolderPaths> {
    const paths = new FolderPaths(client);
    await paths.#reload();
    return paths;
  }

  async #reload(): Promise<void> {
    const { folders } = await this.#client.call('listFolders', { query: { include_document_count: 'false' } });
    const byId = new Map<string, FolderNode>(folders.map((f) => [f.id, f]));
    const pathOf = (f: FolderNode): string => {
      const parent = f.parent_id ? byId.get(f.parent_id) : undefined;
      return `${parent ? pathOf(parent) : ''}/${f.name}`;
    };
    this.#byPath = new Map(folders.map((f) => [normalise(pathOf(f)), f.id]));
  }

  /** A folder id for a path or an id; null for the top level (`/` or empty). */
  resolve(pathOrId: string): string | null | undefined {
    if (!pathOrId || pathOrId === '/') return null;
    if (!pathOrId.startsWith('/')) return [...this.#byPath.values()].includes(pathOrId) ? pathOrId : undefined;
    return this.#byPath.get(normalise(pathOrId));
  }

  /** The id of the folder at `path`, created (with its parents) when missing; null for the top level. */
  async ensure(path: string): Promise<string | null> {
    const tidy = tidyPath(path);
    const key = normalise(tidy);
    if (key === '') return null;
    const known = this.#byPath.get(key);
    if (known) return known;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#create(tidy, key);
      this.#pending.set(key, pending);
    }
    return pending;
  }

  // `path` keeps the caller's spelling ("Board Papers" is created as such); `key` only finds it.
  async #create(path: string, key: string): Promise<string> {
    const cut = path.lastIndexOf('/');
    const parentId = await this.ensure(path.slice(0, cut));
    const name = path.slice(cut + 1);
    try {
      const folder = await this.#client.call('createFolder', { body: { name, parent_id: parentId } });
      this.#byPath.set(key, folder.id);
      return folder.id;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      await this.#reload();
      const id = this.#byPath.get(key);
      if (!id) throw error;
      return id;
    }
  }
}

/** "/A//b/" -> "/A/b": one slash between names, none at the end, the names' case kept; '' for the top level. */
function tidyPath(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length ? `/${parts.join('/')}` : '';
}

// Folder names compare case-insensitively on the service, so lookups do too ("/A//b/" and "/a/b" are one path).
function normalise(path: string): string {
  return tidyPath(path).toLowerCase();
}
