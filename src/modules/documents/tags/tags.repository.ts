import type { Selectable } from 'kysely';
import type { TagsTable } from '../documents.tables.ts';
import type { Executor } from '../../../db/executor.ts';

/** A tag as services see it. */
export interface Tag {
  id: string;
  tenantId: string;
  name: string;
  color: string;
  createdAt: number;
}

export function toTag(row: Selectable<TagsTable>): Tag {
  return { id: row.id, tenantId: row.tenant_id, name: row.name, color: row.color, createdAt: row.created_at };
}

/** The stored row: `name_key` is the lower-cased name (tag names are unique per tenant, case-insensitively). */
function tagRow(tag: Tag): Selectable<TagsTable> {
  return {
    id: tag.id,
    tenant_id: tag.tenantId,
    name: tag.name,
    name_key: tag.name.toLowerCase(),
    color: tag.color,
    created_at: tag.createdAt,
  };
}

/** SQL for tags and document-tag links; every query takes the tenant. */
export class TagsRepository {
  async insert(db: Executor, tag: Tag): Promise<void> {
    await db.insertInto('tags').values(tagRow(tag)).execute();
  }

  async insertIgnoringDuplicates(db: Executor, tags: Tag[]): Promise<void> {
    if (tags.length === 0) return;
    await db
      .insertInto('tags')
      .values(tags.map(tagRow))
      .onConflict((oc) => oc.columns(['tenant_id', 'name_key']).doNothing())
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<Tag | null> {
    const row = await db
      .selectFrom('tags')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toTag(row) : null;
  }

  /** The ids of the tenant's tags with these name keys (lower-cased names), by key. */
  async idsByKey(db: Executor, tenantId: string, keys: string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await db
      .selectFrom('tags')
      .select(['name_key', 'id'])
      .where('tenant_id', '=', tenantId)
      .where('name_key', 'in', keys)
      .execute();
    return new Map(rows.map((r) => [r.name_key, r.id]));
  }

  /** The tenant's tag names, most applied first, at most `limit`. */
  async namesByUse(db: Executor, tenantId: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('tags')
      .leftJoin('document_tags', (join) =>
        join.onRef('document_tags.tenant_id', '=', 'tags.tenant_id').onRef('document_tags.tag_id', '=', 'tags.id'),
      )
      .select(['tags.name', (eb) => eb.fn.count<number>('document_tags.document_id').as('uses')])
      .where('tags.tenant_id', '=', tenantId)
      .groupBy(['tags.id', 'tags.name'])
      .orderBy('uses', 'desc')
      .orderBy('tags.name')
      .limit(limit)
      .execute();
    return rows.map((r) => r.name);
  }

  /**
   * The tenant's tags on at least `minDocuments` documents, each with its most recently tagged
   * documents (at most `perTag`): what learned tags train on.
   */
  async taggedDocuments(
    db: Executor,
    tenantId: string,
    minDocuments: number,
    perTag: number,
  ): Promise<{ tag: string; documentIds: string[] }[]> {
    const tags = await db
      .selectFrom('document_tags')
      .innerJoin('tags', (join) =>
        join.onRef('tags.tenant_id', '=', 'document_tags.tenant_id').onRef('tags.id', '=', 'document_tags.tag_id'),
      )
      .select(['tags.id', 'tags.name'])
      .where('document_tags.tenant_id', '=', tenantId)
      .groupBy(['tags.id', 'tags.name'])
      .having((eb) => eb.fn.countAll(), '>=', minDocuments)
      .orderBy('tags.name')
      .execute();
    const out: { tag: string; documentIds: string[] }[] = [];
    for (const tag of tags) {
      const rows = await db
        .selectFrom('document_tags')
        .select('document_id')
        .where('tenant_id', '=', tenantId)
        .where('tag_id', '=', tag.id)
        .orderBy('created_at', 'desc')
        .orderBy('document_id', 'desc')
        .limit(perTag)
        .execute();
      out.push({ tag: tag.name, documentIds: rows.map((r) => r.document_id) });
    }
    return out;
  }

  async list(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: Tag[]; total: number }> {
    const base = db.selectFrom('tags').where('tenant_id', '=', tenantId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('name_key').orderBy('id').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toTag), total: Number(count.n) };
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    await db.deleteFrom('document_tags').where('tenant_id', '=', tenantId).where('tag_id', '=', id).execute();
    const result = await db
      .deleteFrom('tags')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Replaces a document's tags with exactly these. */
  async setDocumentTags(
    db: Executor,
    tenantId: string,
    documentId: string,
    tagIds: string[],
    now: number,
  ): Promise<void> {
    await db
      .deleteFrom('document_tags')
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .execute();
    if (tagIds.length === 0) return;
    await db
      .insertInto('document_tags')
      .values(tagIds.map((tag_id) => ({ tenant_id: tenantId, document_id: documentId, tag_id, created_at: now })))
      .execute();
  }

  /** Tag names per document, for a page of documents (one query). */
  async namesByDocument(db: Executor, tenantId: string, documentIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (documentIds.length === 0) return out;
    const rows = await db
      .selectFrom('document_tags')
      .innerJoin('tags', 'tags.id', 'document_tags.tag_id')
      .select(['document_tags.document_id', 'tags.name'])
      .where('document_tags.tenant_id', '=', tenantId)
      .where('document_tags.document_id', 'in', documentIds)
      .orderBy('tags.name_key')
      .execute();
    for (const row of rows) {
      const list = out.get(row.document_id) ?? [];
      list.push(row.name);
      out.set(row.document_id, list);
    }
    return out;
  }
}
