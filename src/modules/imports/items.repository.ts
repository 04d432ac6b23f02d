import type { Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ImportFoldersTable, ImportItemsTable, ItemStatus } from './imports.tables.ts';

export type ItemRow = Selectable<ImportItemsTable>;
export type FolderMapRow = Selectable<ImportFoldersTable>;

export interface ItemFilter {
  status?: ItemStatus | undefined;
  /** An extension (`pdf`) or a media type (`application/pdf`). */
  type?: string | undefined;
  minSize?: number | undefined;
  maxSize?: number | undefined;
}

/** Rows per multi-row insert (well under both dialects' parameter limits). */
const INSERT_CHUNK = 200;

/** SQL for the files and folders a project's scan found; every query takes the tenant. */
export class ItemsRepository {
  /** Adds scanned files; one already recorded for the project (reached twice) is left as it is. */
  async insertMany(db: Executor, rows: ItemRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await db
        .insertInto('import_items')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['tenant_id', 'project_id', 'source_file_id']).doNothing())
        .execute();
    }
  }

  async insertFolders(db: Executor, rows: FolderMapRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await db
        .insertInto('import_folders')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['tenant_id', 'project_id', 'source_folder_id']).doNothing())
        .execute();
    }
  }

  /** Forgets an earlier scan (a new scan starts from nothing). */
  async clear(db: Executor, tenantId: string, projectId: string): Promise<void> {
    await db.deleteFrom('import_items').where('tenant_id', '=', tenantId).where('project_id', '=', projectId).execute();
    await db.deleteFrom('import_folders').where('tenant_id', '=', tenantId).where('project_id', '=', projectId).execute();
  }

  async list(db: Executor, tenantId: string, projectId: string, filter: ItemFilter, page: { limit: number; offset: number }): Promise<{ rows: ItemRow[]; total: number }> {
    let query = db.selectFrom('import_items').where('tenant_id', '=', tenantId).where('project_id', '=', projectId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.minSize !== undefined) query = query.where('size', '>=', filter.minSize);
    if (filter.maxSize !== undefined) query = query.where('size', '<=', filter.maxSize);
    if (filter.type) {
      const type = filter.type.trim().toLowerCase();
      query = type.includes('/')
        ? query.where('mime_type', '=', type)
        : query.where((eb) => eb(eb.fn('lower', ['name']), 'like', `%.${type.replace(/^\./, '').replace(/[\\%_]/g, (c) => `\\${c}`)}`));
    }
    const rows = await query.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
    const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(n) };
  }

  async counts(db: Executor, tenantId: string, projectId: string): Promise<Record<ItemStatus, number>> {
    const rows = await db
      .selectFrom('import_items')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .groupBy('status')
      .execute();
    const counts: Record<ItemStatus, number> = { pending: 0, imported: 0, failed: 0, skipped: 0 };
    for (const r of rows) counts[r.status] = Number(r.n);
    return counts;
  }

  /** Bytes of the files to import and of those imported. */
  async bytes(db: Executor, tenantId: string, projectId: string): Promise<{ total: number; imported: number }> {
    const rows = await db
      .selectFrom('import_items')
      .select(['status', (eb) => eb.fn.sum<number>('size').as('bytes')])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '!=', 'skipped')
      .groupBy('status')
      .execute();
    const total = rows.reduce((sum, r) => sum + Number(r.bytes ?? 0), 0);
    return { total, imported: Number(rows.find((r) => r.status === 'imported')?.bytes ?? 0) };
  }

  /** The file a lane holds (it died or was stopped while working on it), if any. */
  async heldBy(db: Executor, tenantId: string, projectId: string, lane: number): Promise<ItemRow | null> {
    const row = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('lane', '=', lane)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row ?? null;
  }

  /** The next pending file due by `now` that no lane holds. */
  async nextDue(db: Executor, tenantId: string, projectId: string, now: number): Promise<ItemRow | null> {
    const row = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where('lane', 'is', null)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row ?? null;
  }

  /** When the earliest pending file no lane holds is due; null when none is left. */
  async earliestPending(db: Executor, tenantId: string, projectId: string): Promise<number | null> {
    const row = await db
      .selectFrom('import_items')
      .select((eb) => eb.fn.min<number>('next_attempt_at').as('at'))
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '=', 'pending')
      .where('lane', 'is', null)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  async anyPending(db: Executor, tenantId: string, projectId: string): Promise<boolean> {
    const row = await db
      .selectFrom('import_items')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '=', 'pending')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Takes a file for a lane; false when another lane took it first. */
  async claim(db: Executor, tenantId: string, id: string, lane: number, now: number): Promise<boolean> {
    const result = await db
      .updateTable('import_items')
      .set({ lane, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('lane', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async update(db: Executor, tenantId: string, id: string, patch: Updateable<ImportItemsTable>): Promise<void> {
    await db.updateTable('import_items').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** The most recently finished file (progress's `current_item` once nothing is being worked on). */
  async current(db: Executor, tenantId: string, projectId: string): Promise<ItemRow | null> {
    const held = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('lane', 'is not', null)
      .where('status', '=', 'pending')
      .orderBy('updated_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return held ?? null;
  }

  async folder(db: Executor, tenantId: string, projectId: string, sourceFolderId: string): Promise<FolderMapRow | null> {
    const row = await db
      .selectFrom('import_folders')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('source_folder_id', '=', sourceFolderId)
      .executeTakeFirst();
    return row ?? null;
  }

  async setFolderTarget(db: Executor, tenantId: string, projectId: string, sourceFolderId: string, folderId: string): Promise<void> {
    await db
      .updateTable('import_folders')
      .set({ folder_id: folderId })
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('source_folder_id', '=', sourceFolderId)
      .execute();
  }
}

/** Files finished (imported, failed, or skipped as duplicates) at or after `since`: the run's pace. */
export async function countFinishedSince(db: Executor, tenantId: string, projectId: string, since: number): Promise<number> {
  const { n } = await db
    .selectFrom('import_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('finished_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(n);
}
