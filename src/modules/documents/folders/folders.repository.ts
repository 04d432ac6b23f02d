import type { Selectable, Updateable } from 'kysely';
import type { FoldersTable } from '../../../db/schema.ts';
import type { Executor } from '../../../db/executor.ts';
import { type VisibilityScope, visibilityRows } from '../access/access.repository.ts';

export type FolderRow = Selectable<FoldersTable>;

/** Which folders a listing wants: all of them, the top level (null), or one folder's children. */
export type ParentFilter = { kind: 'all' } | { kind: 'root' } | { kind: 'children'; parentId: string };

/** SQL for folders; every query takes the tenant. */
export class FoldersRepository {
  async insert(db: Executor, row: FolderRow): Promise<void> {
    await db.insertInto('folders').values(row).execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<FolderRow | null> {
    const row = await db.selectFrom('folders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row ?? null;
  }

  async exists(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const row = await db.selectFrom('folders').select('id').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  /** A sibling with the same name key, other than `exceptId`. */
  async findSibling(db: Executor, tenantId: string, parentId: string | null, nameKey: string, exceptId?: string): Promise<FolderRow | null> {
    let q = db
      .selectFrom('folders')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('name_key', '=', nameKey)
      .where('parent_id', parentId === null ? 'is' : '=', parentId);
    if (exceptId) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) ?? null;
  }

  async list(db: Executor, tenantId: string, filter: ParentFilter): Promise<FolderRow[]> {
    let q = db.selectFrom('folders').selectAll().where('tenant_id', '=', tenantId);
    if (filter.kind === 'root') q = q.where('parent_id', 'is', null);
    if (filter.kind === 'children') q = q.where('parent_id', '=', filter.parentId);
    return q.orderBy('name_key').orderBy('id').execute();
  }

  /**
   * Documents directly inside each folder that a (non-administrator) caller can see, counted from
   * their visibility rows through the (tenant_id, user_id, folder_id, …) index.
   */
  async visibleDocumentCounts(db: Executor, tenantId: string, folderIds: string[] | 'all', scope: VisibilityScope): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (folderIds !== 'all' && folderIds.length === 0) return counts;
    const base = visibilityRows(db, tenantId, scope)
      .select(['v.folder_id', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('v.folder_id');
    const chunks = folderIds === 'all' ? [null] : Array.from({ length: Math.ceil(folderIds.length / 500) }, (_, i) => folderIds.slice(i * 500, i * 500 + 500));
    for (const chunk of chunks) {
      const q = chunk === null ? base.where('v.folder_id', 'is not', null) : base.where('v.folder_id', 'in', chunk);
      for (const row of await q.execute()) if (row.folder_id) counts.set(row.folder_id, Number(row.n));
    }
    return counts;
  }

  async update(db: Executor, tenantId: string, id: string, patch: Updateable<FoldersTable>): Promise<void> {
    await db.updateTable('folders').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** The folder and every folder below it, at any depth (one recursive query). */
  async subtreeIds(db: Executor, tenantId: string, id: string): Promise<string[]> {
    const rows = await db
      .withRecursive('subtree(id)', (qb) =>
        qb
          .selectFrom('folders')
          .select('folders.id')
          .where('folders.tenant_id', '=', tenantId)
          .where('folders.id', '=', id)
          .unionAll((u) =>
            u
              .selectFrom('folders')
              .innerJoin('subtree', 'subtree.id', 'folders.parent_id')
              .select('folders.id')
              .where('folders.tenant_id', '=', tenantId),
          ),
      )
      .selectFrom('subtree')
      .select('subtree.id')
      .execute();
    return rows.map((r) => r.id);
  }

  async hasChildren(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const row = await db.selectFrom('folders').select('id').where('tenant_id', '=', tenantId).where('parent_id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  /** Deletes folders; children are removed by the parent_id cascade as well. */
  async deleteMany(db: Executor, tenantId: string, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await db.deleteFrom('folders').where('tenant_id', '=', tenantId).where('id', 'in', ids.slice(i, i + 500)).execute();
    }
  }
}
