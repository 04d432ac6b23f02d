import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { SavedViewsTable } from './views.tables.ts';
import './views.tables.ts';

/** A saved view as services see it. */
export interface SavedView {
  id: string;
  tenantId: string;
  ownerId: string;
  name: string;
  folderId: string | null;
  filters: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

function toView(row: Selectable<SavedViewsTable>): SavedView {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    ownerId: row.owner_id,
    name: row.name,
    folderId: row.folder_id,
    filters: JSON.parse(row.filters) as Record<string, string>,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** SQL for saved views; every query takes the tenant and the owner, so one person never reaches another's. */
export class SavedViewsRepository {
  async insert(db: Executor, view: SavedView, nameKey: string): Promise<void> {
    await db
      .insertInto('saved_views')
      .values({
        id: view.id,
        tenant_id: view.tenantId,
        owner_id: view.ownerId,
        name: view.name,
        name_key: nameKey,
        folder_id: view.folderId,
        filters: JSON.stringify(view.filters),
        created_at: view.createdAt,
        updated_at: view.updatedAt,
      })
      .execute();
  }

  async find(db: Executor, tenantId: string, ownerId: string, id: string): Promise<SavedView | null> {
    const row = await db
      .selectFrom('saved_views')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('owner_id', '=', ownerId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toView(row) : null;
  }

  /** By name, A to Z (the order a menu shows them in). */
  async list(
    db: Executor,
    tenantId: string,
    ownerId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: SavedView[]; total: number }> {
    const base = db.selectFrom('saved_views').where('tenant_id', '=', tenantId).where('owner_id', '=', ownerId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('name_key').orderBy('id').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toView), total: Number(count.n) };
  }

  async update(db: Executor, view: SavedView, nameKey: string): Promise<void> {
    await db
      .updateTable('saved_views')
      .set({
        name: view.name,
        name_key: nameKey,
        folder_id: view.folderId,
        filters: JSON.stringify(view.filters),
        updated_at: view.updatedAt,
      })
      .where('tenant_id', '=', view.tenantId)
      .where('owner_id', '=', view.ownerId)
      .where('id', '=', view.id)
      .execute();
  }

  /** Whether a view was there to delete. */
  async delete(db: Executor, tenantId: string, ownerId: string, id: string): Promise<boolean> {
    const result = await db
      .deleteFrom('saved_views')
      .where('tenant_id', '=', tenantId)
      .where('owner_id', '=', ownerId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('saved_views').where('tenant_id', '=', tenantId).execute();
  }
}
