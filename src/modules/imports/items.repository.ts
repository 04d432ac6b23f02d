import type { Insertable, Selectable } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import type { ImportFoldersTable, ImportItemsTable, ItemStatus } from './imports.tables.ts';

/** One file a project's scan found, and how its import went. */
export interface ImportItem {
  id: string;
  tenantId: string;
  projectId: string;
  sourceFileId: string;
  sourceFolderId: string;
  name: string;
  path: string;
  mimeType: string;
  size: number | null;
  status: ItemStatus;
  skipReason: string | null;
  error: string | null;
  attempts: number;
  /** When a pending file is due (again). */
  nextAttemptAt: number;
  /** The lane holding the file while it is imported; null when none does. */
  lane: number | null;
  documentId: string | null;
  finishedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** When the imported document finished processing (or failed, or was gone): agents may look at it. */
  settledAt: number | null;
  /** 1, 2, 3... in the order a project's documents settled; batch k of an agent is (k-1)N+1..kN. */
  settledSeq: number | null;
}

/** What recording an attempt may change. */
export type ImportItemPatch = Partial<Omit<ImportItem, 'id' | 'tenantId' | 'projectId' | 'createdAt'>>;

/** A source folder the scan reached, and the library folder made for it (null until a file needs it). */
export interface ImportFolder {
  tenantId: string;
  projectId: string;
  sourceFolderId: string;
  /** null: one of the project's `folder_ids`. */
  parentSourceId: string | null;
  name: string;
  folderId: string | null;
}

export function toImportItem(row: Selectable<ImportItemsTable>): ImportItem {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    projectId: row.project_id,
    sourceFileId: row.source_file_id,
    sourceFolderId: row.source_folder_id,
    name: row.name,
    path: row.path,
    mimeType: row.mime_type,
    size: row.size === null ? null : Number(row.size),
    status: row.status,
    skipReason: row.skip_reason,
    error: row.error,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lane: row.lane,
    documentId: row.document_id,
    finishedAt: row.finished_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    settledAt: row.settled_at,
    settledSeq: row.settled_seq === null ? null : Number(row.settled_seq),
  };
}

const ITEM_COLUMNS: ColumnMap<ImportItem, ImportItemsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  projectId: 'project_id',
  sourceFileId: 'source_file_id',
  sourceFolderId: 'source_folder_id',
  name: 'name',
  path: 'path',
  mimeType: 'mime_type',
  size: 'size',
  status: 'status',
  skipReason: 'skip_reason',
  error: 'error',
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  lane: 'lane',
  documentId: 'document_id',
  finishedAt: 'finished_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  settledAt: 'settled_at',
  settledSeq: 'settled_seq',
};

function toImportFolder(row: Selectable<ImportFoldersTable>): ImportFolder {
  return {
    tenantId: row.tenant_id,
    projectId: row.project_id,
    sourceFolderId: row.source_folder_id,
    parentSourceId: row.parent_source_id,
    name: row.name,
    folderId: row.folder_id,
  };
}

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
  async insertMany(db: Executor, items: ImportItem[]): Promise<void> {
    const rows = items.map((item) => columnsOf(ITEM_COLUMNS, item) as Insertable<ImportItemsTable>);
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await db
        .insertInto('import_items')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['tenant_id', 'project_id', 'source_file_id']).doNothing())
        .execute();
    }
  }

  async insertFolders(db: Executor, folders: ImportFolder[]): Promise<void> {
    const rows = folders.map((f) => ({
      tenant_id: f.tenantId,
      project_id: f.projectId,
      source_folder_id: f.sourceFolderId,
      parent_source_id: f.parentSourceId,
      name: f.name,
      folder_id: f.folderId,
    }));
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
    await db
      .deleteFrom('import_folders')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .execute();
  }

  async list(
    db: Executor,
    tenantId: string,
    projectId: string,
    filter: ItemFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ImportItem[]; total: number }> {
    let query = db.selectFrom('import_items').where('tenant_id', '=', tenantId).where('project_id', '=', projectId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.minSize !== undefined) query = query.where('size', '>=', filter.minSize);
    if (filter.maxSize !== undefined) query = query.where('size', '<=', filter.maxSize);
    if (filter.type) {
      const type = filter.type.trim().toLowerCase();
      query = type.includes('/')
        ? query.where('mime_type', '=', type)
        : query.where((eb) =>
            eb(eb.fn('lower', ['name']), 'like', `%.${type.replace(/^\./, '').replace(/[\\%_]/g, (c) => `\\${c}`)}`),
          );
    }
    const rows = await query.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
    const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows: rows.map(toImportItem), total: Number(n) };
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
  async heldBy(db: Executor, tenantId: string, projectId: string, lane: number): Promise<ImportItem | null> {
    const row = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('lane', '=', lane)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row ? toImportItem(row) : null;
  }

  /** The next pending file due by `now` that no lane holds. */
  async nextDue(db: Executor, tenantId: string, projectId: string, now: number): Promise<ImportItem | null> {
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
    return row ? toImportItem(row) : null;
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

  async update(db: Executor, tenantId: string, id: string, patch: ImportItemPatch): Promise<void> {
    await db
      .updateTable('import_items')
      .set(columnsOf(ITEM_COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** The most recently finished file (progress's `current_item` once nothing is being worked on). */
  async current(db: Executor, tenantId: string, projectId: string): Promise<ImportItem | null> {
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
    return held ? toImportItem(held) : null;
  }

  async folder(
    db: Executor,
    tenantId: string,
    projectId: string,
    sourceFolderId: string,
  ): Promise<ImportFolder | null> {
    const row = await db
      .selectFrom('import_folders')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('source_folder_id', '=', sourceFolderId)
      .executeTakeFirst();
    return row ? toImportFolder(row) : null;
  }

  async setFolderTarget(
    db: Executor,
    tenantId: string,
    projectId: string,
    sourceFolderId: string,
    folderId: string,
  ): Promise<void> {
    await db
      .updateTable('import_folders')
      .set({ folder_id: folderId })
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('source_folder_id', '=', sourceFolderId)
      .execute();
  }

  /** The imported file whose document this is, while it has not settled. */
  async unsettledByDocument(db: Executor, tenantId: string, documentId: string): Promise<ImportItem | null> {
    const row = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where('status', '=', 'imported')
      .where('settled_at', 'is', null)
      .executeTakeFirst();
    return row ? toImportItem(row) : null;
  }

  /** Marks a file settled with the project's next sequence number (or none, for a document that vanished); the number. */
  async settle(
    trx: Executor,
    item: Pick<ImportItem, 'tenantId' | 'projectId' | 'id'>,
    now: number,
    numbered = true,
  ): Promise<number | null> {
    const seq = numbered ? (await this.settledCount(trx, item.tenantId, item.projectId)) + 1 : null;
    await trx
      .updateTable('import_items')
      .set({ settled_at: now, settled_seq: seq })
      .where('tenant_id', '=', item.tenantId)
      .where('id', '=', item.id)
      .execute();
    return seq;
  }

  /** Documents of the files numbered `after` < seq ≤ `upTo` (upTo null: all), in settling order. */
  async settledDocuments(
    db: Executor,
    tenantId: string,
    projectId: string,
    after: number,
    upTo: number | null,
  ): Promise<string[]> {
    let q = db
      .selectFrom('import_items')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('settled_seq', '>', after);
    if (upTo !== null) q = q.where('settled_seq', '<=', upTo);
    const rows = await q.orderBy('settled_seq').execute();
    return rows.map((r) => r.document_id).filter((id): id is string => id !== null);
  }

  /** How many of the project's files have settled with a number (the last number given). */
  async settledCount(db: Executor, tenantId: string, projectId: string): Promise<number> {
    const { top } = await db
      .selectFrom('import_items')
      .select((eb) => eb.fn.max<number | null>('settled_seq').as('top'))
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(top ?? 0);
  }

  /** Imported files whose documents have not settled yet. */
  async unsettled(db: Executor, tenantId: string, projectId: string): Promise<ImportItem[]> {
    const rows = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '=', 'imported')
      .where('settled_at', 'is', null)
      .execute();
    return rows.map(toImportItem);
  }
}

/** Files finished (imported, failed, or skipped as duplicates) at or after `since`: the run's pace. */
export async function countFinishedSince(
  db: Executor,
  tenantId: string,
  projectId: string,
  since: number,
): Promise<number> {
  const { n } = await db
    .selectFrom('import_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('finished_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(n);
}
