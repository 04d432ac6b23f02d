import type { Database } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { acceptName, nameKey } from '../../lib/names.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { SavedView, SavedViewsRepository } from './saved-views.repository.ts';

/** At most this many entries in a view's `filters`, each key this shape. */
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUE = 500;
const FILTER_KEY = /^[a-z][a-z0-9_]{0,31}$/;

interface Deps {
  database: Database;
  clock: Clock;
  repository: SavedViewsRepository;
  folders: Pick<ModuleServices['folders'], 'get'>;
}

export interface ViewInput {
  name: string;
  folderId: string | null;
  filters: Record<string, string>;
}

/** Whose views the caller's are: the signed-in user's, or the API key's (which has no user). */
function ownerOf(auth: AuthContext): string {
  return auth.userId ? `user:${auth.userId}` : `key:${auth.apiKeyId}`;
}

function acceptFilters(filters: Record<string, string>): Record<string, string> {
  const bad = Object.keys(filters).find((k) => !FILTER_KEY.test(k));
  if (bad !== undefined)
    throw errors.field('filters', `key "${bad}" must be lower-case letters, digits or _ (at most 32, a letter first)`);
  return filters;
}

/**
 * Saved views of the console's documents page (docs/console.md "Saved views"): a person keeps a
 * folder with its sort and filters under a name. Each view is its owner's only: another person of
 * the tenant (an admin too) gets 404 for it, as for something that does not exist. Viewers may keep
 * views: saving one changes nothing anyone else sees.
 */
export class SavedViewsService {
  readonly #deps: Deps;

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async create(auth: AuthContext, input: ViewInput): Promise<SavedView> {
    const { database, clock, repository } = this.#deps;
    const name = acceptName(input.name, 'name');
    await this.#checkFolder(auth, input.folderId);
    const now = clock.now();
    const view: SavedView = {
      id: newId(now),
      tenantId: auth.tenant.id,
      ownerId: ownerOf(auth),
      name,
      folderId: input.folderId,
      filters: acceptFilters(input.filters),
      createdAt: now,
      updatedAt: now,
    };
    await this.#unique(name, () => repository.insert(database.db, view, nameKey(name)));
    return view;
  }

  list(auth: AuthContext, page: { limit: number; offset: number }) {
    return this.#deps.repository.list(this.#deps.database.db, auth.tenant.id, ownerOf(auth), page);
  }

  async get(auth: AuthContext, id: string): Promise<SavedView> {
    const view = await this.#deps.repository.find(this.#deps.database.db, auth.tenant.id, ownerOf(auth), id);
    if (!view) throw errors.notFound('saved view', id);
    return view;
  }

  /** Renames a view, or saves another folder or filters under it; what is not given stays. */
  async update(auth: AuthContext, id: string, changes: Partial<ViewInput>): Promise<SavedView> {
    const { database, clock, repository } = this.#deps;
    const view = await this.get(auth, id);
    const name = changes.name === undefined ? view.name : acceptName(changes.name, 'name');
    if (changes.folderId !== undefined) await this.#checkFolder(auth, changes.folderId);
    const next: SavedView = {
      ...view,
      name,
      folderId: changes.folderId === undefined ? view.folderId : changes.folderId,
      filters: changes.filters === undefined ? view.filters : acceptFilters(changes.filters),
      updatedAt: clock.now(),
    };
    await this.#unique(name, () => repository.update(database.db, next, nameKey(name)));
    return next;
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    const { database, repository } = this.#deps;
    if (!(await repository.delete(database.db, auth.tenant.id, ownerOf(auth), id)))
      throw errors.notFound('saved view', id);
  }

  /** A folder the caller can see (404 otherwise); null is the root. */
  async #checkFolder(auth: AuthContext, folderId: string | null): Promise<void> {
    if (folderId !== null) await this.#deps.folders.get(auth, folderId);
  }

  /** Runs a write; one person's second view of a name that reads alike is a 409. */
  async #unique(name: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict(`You already have a saved view named "${name}"`);
      throw error;
    }
  }
}
