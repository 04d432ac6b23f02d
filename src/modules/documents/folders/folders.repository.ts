import type { Selectable, Updateable } from 'kysely';
import type { FoldersTable } from '../documents.tables.ts';
import type { Executor } from '../../../db/executor.ts';
import { nameKey } from '../../../lib/names.ts';
import { type VisibilityScope, visibilityRows } from '../access/access.repository.ts';

/** A folder as services see it. */
export interface Folder {
  id: string;
  tenantId: string;
  /** null: at the top level. */
  parentId: string | null;
  name: string;
  color: string;
  icon: string;
  createdBy: string | null;
  /** Every document directly inside, kept by triggers on `documents` (what tenant administrators see). */
  documentCount: number;
  createdAt: number;
  updatedAt: number;
}

/** What an update may change (the name key follows the name). */
export type FolderPatch = Partial<Pick<Folder, 'name' | 'color' | 'icon' | 'parentId'>> & { updatedAt: number };

export function toFolder(row: Selectable<FoldersTable>): Folder {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    parentId: row.parent_id,
    name: row.name,
    color: row.color,
    icon: row.icon,
    createdBy: row.created_by,
    documentCount: Number(row.document_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Which folders a listing wants: all of them, the top level (null), or one folder's children. */
export type ParentFilter = { kind: 'all' } | { kind: 'root' } | { kind: 'children'; parentId: string };

/** SQL for folders; every query takes the tenant. */
export class FoldersRepository {
  /** A new folder; its document count starts at 0 and is kept by triggers from then on. */
  async insert(db: Executor, folder: Folder): Promise<void> {
    await db
      .insertInto('folders')
      .values({
        id: folder.id,
        tenant_id: folder.tenantId,
        parent_id: folder.parentId,
        name: folder.name,
        name_key: nameKey(folder.name),
        color: folder.color,
        icon: folder.icon,
        created_by: folder.createdBy,
        created_at: folder.createdAt,
        updated_at: folder.updatedAt,
      })
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<Folder | null> {
    const row = await db
      .selectFrom('folders')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toFolder(row) : null;
  }

  async exists(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('folders')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether a sibling other than `exceptId` has the same name: the same `nameKey` (normalised, case-folded). */
  async siblingNamed(
    db: Executor,
    tenantId: string,
    parentId: string | null,
    name: string,
    exceptId?: string,
  ): Promise<boolean> {
    let q = db
      .selectFrom('folders')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('name_key', '=', nameKey(name))
      .where('parent_id', parentId === null ? 'is' : '=', parentId);
    if (exceptId) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async list(db: Executor, tenantId: string, filter: ParentFilter): Promise<Folder[]> {
    let q = db.selectFrom('folders').selectAll().where('tenant_id', '=', tenantId);
    if (filter.kind === 'root') q = q.where('parent_id', 'is', null);
    if (filter.kind === 'children') q = q.where('parent_id', '=', filter.parentId);
    return (await q.orderBy('name_key').orderBy('id').execute()).map(toFolder);
  }

  /**
   * Documents directly inside each folder that a (non-administrator) caller can see, counted from
   * their visibility rows through the (tenant_id, user_id, folder_id, …) index.
   */
  async visibleDocumentCounts(
    db: Executor,
    tenantId: string,
    folderIds: string[] | 'all',
    scope: VisibilityScope,
  ): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (folderIds !== 'all' && folderIds.length === 0) return counts;
    const base = visibilityRows(db, tenantId, scope)
      .select(['v.folder_id', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('v.folder_id');
    const chunks =
      folderIds === 'all'
        ? [null]
        : Array.from({ length: Math.ceil(folderIds.length / 500) }, (_, i) => folderIds.slice(i * 500, i * 500 + 500));
    for (const chunk of chunks) {
      const q = chunk === null ? base.where('v.folder_id', 'is not', null) : base.where('v.folder_id', 'in', chunk);
      for (const row of await q.execute()) if (row.folder_id) counts.set(row.folder_id, Number(row.n));
    }
    return counts;
  }

  async update(db: Executor, tenantId: string, id: string, patch: FolderPatch): Promise<void> {
    const values: Updateable<FoldersTable> = { updated_at: patch.updatedAt };
    if (patch.name !== undefined) Object.assign(values, { name: patch.name, name_key: nameKey(patch.name) });
    if (patch.color !== undefined) values.color = patch.color;
    if (patch.icon !== undefined) values.icon = patch.icon;
    if (patch.parentId !== undefined) values.parent_id = patch.parentId;
    await db.updateTable('folders').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
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

  /** `/Invoices/2025` for a folder (its ancestors' names from the top, one recursive query), `/` for none or the root. */
  async pathOf(db: Executor, tenantId: string, folderId: string | null): Promise<string> {
    if (folderId === null) return '/';
    const rows = await db
      // The depth is a literal: PostgreSQL would type a parameter in the seed row as text.
      .withRecursive('ancestry(id, parent_id, name, depth)', (qb) =>
        qb
          .selectFrom('folders')
          .select(['folders.id', 'folders.parent_id', 'folders.name', (eb) => eb.lit(0).as('depth')])
          .where('folders.tenant_id', '=', tenantId)
          .where('folders.id', '=', folderId)
          .unionAll((u) =>
            u
              .selectFrom('folders')
              .innerJoin('ancestry', 'ancestry.parent_id', 'folders.id')
              .select([
                'folders.id',
                'folders.parent_id',
                'folders.name',
                (eb) => eb(eb.ref('ancestry.depth'), '+', eb.lit(1)).as('depth'),
              ])
              .where('folders.tenant_id', '=', tenantId)
              // A bound on the walk, whatever the data.
              .where('ancestry.depth', '<', 100),
          ),
      )
      .selectFrom('ancestry')
      .select('ancestry.name')
      .orderBy('ancestry.depth', 'desc')
      .execute();
    return `/${rows.map((r) => r.name).join('/')}`;
  }

  async hasChildren(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('folders')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('parent_id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Deletes folders; children are removed by the parent_id cascade as well. */
  async deleteMany(db: Executor, tenantId: string, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .deleteFrom('folders')
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
    }
  }
}
