import type { Selectable } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { TenantExportsTable } from '../transfer.tables.ts';

export type ExportStatus = 'queued' | 'running' | 'completed' | 'failed' | 'expired';

export interface TenantExport {
  id: string;
  tenantId: string;
  requestedBy: string;
  status: ExportStatus;
  phase: string;
  entriesTotal: number;
  entriesDone: number;
  bytesTotal: number;
  bytesDone: number;
  blobKey: string | null;
  size: number | null;
  sha256: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  expiresAt: number | null;
}

function toExport(row: Selectable<TenantExportsTable>): TenantExport {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    requestedBy: row.requested_by,
    status: row.status as ExportStatus,
    phase: row.phase,
    entriesTotal: Number(row.entries_total),
    entriesDone: Number(row.entries_done),
    bytesTotal: Number(row.bytes_total),
    bytesDone: Number(row.bytes_done),
    blobKey: row.blob_key,
    size: row.size === null ? null : Number(row.size),
    sha256: row.sha256,
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  };
}

export type ExportPatch = Partial<
  Pick<
    TenantExport,
    | 'status'
    | 'phase'
    | 'entriesTotal'
    | 'entriesDone'
    | 'bytesTotal'
    | 'bytesDone'
    | 'blobKey'
    | 'size'
    | 'sha256'
    | 'error'
    | 'finishedAt'
    | 'expiresAt'
  >
>;

/** Tenant exports (`tenant_exports`), every query scoped by tenant except the job's own reads. */
export class ExportsRepository {
  async insert(db: Executor, e: TenantExport): Promise<void> {
    await db
      .insertInto('tenant_exports')
      .values({
        id: e.id,
        tenant_id: e.tenantId,
        requested_by: e.requestedBy,
        status: e.status,
        phase: e.phase,
        entries_total: e.entriesTotal,
        entries_done: e.entriesDone,
        bytes_total: e.bytesTotal,
        bytes_done: e.bytesDone,
        blob_key: e.blobKey,
        size: e.size,
        sha256: e.sha256,
        error: e.error,
        created_at: e.createdAt,
        updated_at: e.updatedAt,
        finished_at: e.finishedAt,
        expires_at: e.expiresAt,
      })
      .execute();
  }

  async find(db: Executor, tenantId: string, id: string): Promise<TenantExport | null> {
    const row = await db
      .selectFrom('tenant_exports')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toExport(row) : null;
  }

  /** The job's read: it runs for whichever tenant the export belongs to. */
  async findById(db: Executor, id: string): Promise<TenantExport | null> {
    const row = await db.selectFrom('tenant_exports').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toExport(row) : null;
  }

  async update(db: Executor, tenantId: string, id: string, patch: ExportPatch, now: number): Promise<void> {
    const set: Record<string, unknown> = { updated_at: now };
    const columns: Record<keyof ExportPatch, string> = {
      status: 'status',
      phase: 'phase',
      entriesTotal: 'entries_total',
      entriesDone: 'entries_done',
      bytesTotal: 'bytes_total',
      bytesDone: 'bytes_done',
      blobKey: 'blob_key',
      size: 'size',
      sha256: 'sha256',
      error: 'error',
      finishedAt: 'finished_at',
      expiresAt: 'expires_at',
    };
    for (const [field, value] of Object.entries(patch)) set[columns[field as keyof ExportPatch]] = value;
    await db.updateTable('tenant_exports').set(set).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** Completed exports whose download window has passed. */
  async expired(db: Executor, now: number, limit: number): Promise<TenantExport[]> {
    const rows = await db
      .selectFrom('tenant_exports')
      .selectAll()
      .where('status', '=', 'completed')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toExport);
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('tenant_exports').where('tenant_id', '=', tenantId).execute();
  }
}
