import { type Selectable, sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { HoldMatch } from '../documents/index.ts';
import type { LegalHoldsTable } from './records.tables.ts';
import './records.tables.ts';

export type HoldStatus = 'active' | 'released';

/** A legal hold as services see it: what it names (its folders cover everything below them). */
export interface LegalHold {
  id: string;
  tenantId: string;
  name: string;
  status: HoldStatus;
  documentIds: string[];
  folderIds: string[];
  createdBy: string | null;
  createdAt: number;
  releasedBy: string | null;
  releasedAt: number | null;
}

function toHold(row: Selectable<LegalHoldsTable>, items: { documentIds: string[]; folderIds: string[] }): LegalHold {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    status: row.status as HoldStatus,
    documentIds: items.documentIds,
    folderIds: items.folderIds,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    releasedBy: row.released_by,
    releasedAt: row.released_at === null ? null : Number(row.released_at),
  };
}

const CHUNK = 500;

/**
 * SQL for legal holds and what they name; every query takes the tenant.
 *
 * Holds and deletions of one tenant are serialised on PostgreSQL (issue 32: a hold committed while
 * a delete of what it covers was between its check and its commit was lost): placing a hold takes
 * the tenant's hold lock exclusively, and every check of a deletion (`matching`, called in the
 * deleting transaction) takes it shared, both until their transaction ends. So a deletion either
 * checks after the hold committed (and sees it: 409) or the hold waits until the deletion
 * committed (and then finds the document gone: 404). Deletions do not wait for one another. On
 * SQLite writers already run one at a time (transactions begin IMMEDIATE), so there is nothing to do.
 */
export class LegalHoldsRepository {
  readonly #dialect: DialectName;

  constructor(dialect: DialectName) {
    this.#dialect = dialect;
  }

  /** Takes the tenant's hold lock until the transaction of `db` ends (PostgreSQL; nothing on SQLite). */
  async lock(db: Executor, tenantId: string, mode: 'shared' | 'exclusive'): Promise<void> {
    if (this.#dialect !== 'postgres') return;
    const key = `legal_holds:${tenantId}`;
    if (mode === 'shared') await sql`select pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`.execute(db);
    else await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
  }

  async insert(db: Executor, hold: LegalHold): Promise<void> {
    await db
      .insertInto('legal_holds')
      .values({
        id: hold.id,
        tenant_id: hold.tenantId,
        name: hold.name,
        status: hold.status,
        created_by: hold.createdBy,
        created_at: hold.createdAt,
        released_by: null,
        released_at: null,
      })
      .execute();
    const items = [
      ...hold.documentIds.map((id) => ({
        hold_id: hold.id,
        tenant_id: hold.tenantId,
        target_type: 'document',
        target_id: id,
      })),
      ...hold.folderIds.map((id) => ({
        hold_id: hold.id,
        tenant_id: hold.tenantId,
        target_type: 'folder',
        target_id: id,
      })),
    ];
    for (let i = 0; i < items.length; i += CHUNK)
      await db
        .insertInto('legal_hold_items')
        .values(items.slice(i, i + CHUNK))
        .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<LegalHold | null> {
    const row = await db
      .selectFrom('legal_holds')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const items = await this.#items(db, tenantId, [id]);
    return toHold(row, items.get(id) ?? { documentIds: [], folderIds: [] });
  }

  /** Newest first; `status` filters. */
  async list(
    db: Executor,
    tenantId: string,
    f: { status?: HoldStatus; limit: number; offset: number },
  ): Promise<{ rows: LegalHold[]; total: number }> {
    let base = db.selectFrom('legal_holds').where('tenant_id', '=', tenantId);
    if (f.status) base = base.where('status', '=', f.status);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const items = await this.#items(
      db,
      tenantId,
      rows.map((r) => r.id),
    );
    return {
      rows: rows.map((r) => toHold(r, items.get(r.id) ?? { documentIds: [], folderIds: [] })),
      total: Number(count.n),
    };
  }

  /** Marks an active hold released; false when it was not active (released meanwhile). */
  async release(db: Executor, tenantId: string, id: string, by: string | null, at: number): Promise<boolean> {
    const result = await db
      .updateTable('legal_holds')
      .set({ status: 'released', released_by: by, released_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Active holds naming any of these documents or folders (the guard resolved the ancestry). */
  async matching(
    db: Executor,
    tenantId: string,
    targets: { documentIds: readonly string[]; folderIds: readonly string[] },
  ): Promise<HoldMatch[]> {
    const ids = [...targets.documentIds, ...targets.folderIds];
    if (ids.length > 0) await this.lock(db, tenantId, 'shared');
    const out: HoldMatch[] = [];
    const documents = new Set(targets.documentIds);
    const folders = new Set(targets.folderIds);
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await db
        .selectFrom('legal_hold_items as i')
        .innerJoin('legal_holds as h', 'h.id', 'i.hold_id')
        .select(['h.id', 'h.name', 'h.created_at', 'i.target_type', 'i.target_id'])
        .where('i.tenant_id', '=', tenantId)
        .where('i.target_id', 'in', ids.slice(i, i + CHUNK))
        .where('h.tenant_id', '=', tenantId)
        .where('h.status', '=', 'active')
        .orderBy('h.created_at')
        .orderBy('h.id')
        .execute();
      for (const r of rows) {
        const type = r.target_type === 'folder' ? 'folder' : 'document';
        if (!(type === 'folder' ? folders : documents).has(r.target_id)) continue;
        out.push({ holdId: r.id, holdName: r.name, targetType: type, targetId: r.target_id });
      }
    }
    return out;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('legal_hold_items').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('legal_holds').where('tenant_id', '=', tenantId).execute();
  }

  async #items(
    db: Executor,
    tenantId: string,
    holdIds: string[],
  ): Promise<Map<string, { documentIds: string[]; folderIds: string[] }>> {
    const out = new Map<string, { documentIds: string[]; folderIds: string[] }>();
    if (holdIds.length === 0) return out;
    const rows = await db
      .selectFrom('legal_hold_items')
      .select(['hold_id', 'target_type', 'target_id'])
      .where('tenant_id', '=', tenantId)
      .where('hold_id', 'in', holdIds)
      .orderBy('target_id')
      .execute();
    for (const r of rows) {
      const entry = out.get(r.hold_id) ?? { documentIds: [], folderIds: [] };
      (r.target_type === 'folder' ? entry.folderIds : entry.documentIds).push(r.target_id);
      out.set(r.hold_id, entry);
    }
    return out;
  }
}
