import type { Database } from '../../../db/database.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import { errors } from '../../../lib/errors.ts';
import type { Executor } from '../../../db/executor.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { assertMayCreate, assertTenantAdmin } from '../access/document-access.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import type { Tag, TagsRepository } from './tags.repository.ts';

export const DEFAULT_TAG_COLOR = '#6B7280';
export const MAX_TAG_LENGTH = 100;
export const MAX_TAGS_PER_DOCUMENT = 50;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Cleans and checks tag names (trimmed, 1-100 characters, no control characters), dropping case-insensitive duplicates. */
export function normaliseTagNames(names: readonly string[], field = 'tags'): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name.length === 0) continue;
    if (name.length > MAX_TAG_LENGTH) throw errors.field(field, `a tag is at most ${MAX_TAG_LENGTH} characters`);
    if (CONTROL_CHARS.test(name)) throw errors.field(field, 'a tag must not contain control characters');
    const key = name.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(name);
    }
  }
  if (out.length > MAX_TAGS_PER_DOCUMENT) throw errors.field(field, `at most ${MAX_TAGS_PER_DOCUMENT} tags`);
  return out;
}

/** Tags: the tenant's vocabulary, created explicitly or on first use by uploads and updates. */
export class TagsService {
  private readonly deps: { database: Database; clock: Clock; tags: TagsRepository };
  constructor(deps: TagsService['deps']) {
    this.deps = deps;
  }

  list(auth: AuthContext, page: { limit: number; offset: number }) {
    return this.deps.tags.list(this.deps.database.db, auth.tenant.id, page);
  }

  async create(auth: AuthContext, input: { name: string; color?: string }): Promise<Tag> {
    assertMayCreate(auth, 'tags');
    const [name] = normaliseTagNames([input.name], 'name');
    if (!name) throw errors.field('name', 'must not be empty');
    const now = this.deps.clock.now();
    const tag: Tag = {
      id: newId(now),
      tenantId: auth.tenant.id,
      name,
      color: input.color ?? DEFAULT_TAG_COLOR,
      createdAt: now,
    };
    try {
      await this.deps.tags.insert(this.deps.database.db, tag);
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict(`A tag named "${name}" already exists`, { field: 'name' });
      throw error;
    }
    return tag;
  }

  /** Deleting a tag removes it from every document, so only tenant administrators may. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    const { database, tags } = this.deps;
    const deleted = await database.db.transaction().execute(async (trx) => {
      if (!(await tags.findById(trx, auth.tenant.id, id))) return false;
      assertTenantAdmin(auth, 'delete tags');
      return tags.delete(trx, auth.tenant.id, id);
    });
    if (!deleted) throw errors.notFound('tag', id);
  }

  /**
   * The ids of tags with these names, creating the missing ones (in the caller's transaction).
   * Names are already normalised.
   */
  async resolveNames(trx: Executor, tenantId: string, names: string[], now: number): Promise<string[]> {
    const { tags } = this.deps;
    if (names.length === 0) return [];
    const keys = names.map((n) => n.toLowerCase());
    const known = await tags.idsByKey(trx, tenantId, keys);
    const missing = names.filter((n) => !known.has(n.toLowerCase()));
    // A concurrent upload may create the same tag: the insert then quietly yields to it.
    await tags.insertIgnoringDuplicates(
      trx,
      missing.map((name) => ({ id: newId(now), tenantId, name, color: DEFAULT_TAG_COLOR, createdAt: now })),
    );
    const byKey = await tags.idsByKey(trx, tenantId, keys);
    return keys.map((k) => byKey.get(k)!);
  }
}
