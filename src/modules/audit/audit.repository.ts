import { CompiledQuery, type Insertable, type SelectQueryBuilder, sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { registerPreparedStatement } from '../../db/prepared-statements.ts';
import type { DB } from '../../db/schema.ts';
import type { AuditRecordsTable } from './audit.tables.ts';

export type NewAuditRecord = Insertable<AuditRecordsTable>;

/** One recorded act, as the module works on it. */
export interface AuditRecord {
  id: string;
  tenantId: string;
  at: number;
  actorType: string;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  status: number | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  details: Record<string, unknown> | null;
}

export interface AuditFilter {
  actorId?: string;
  documentId?: string;
  action?: string;
  /** Inclusive lower bound, epoch ms. */
  from?: number;
  /** Exclusive upper bound, epoch ms. */
  to?: number;
}

/** Where an export continues: after this record, in the listing's order (newest first). */
export interface AuditCursor {
  at: number;
  id: string;
}

export function toAuditRecord(row: AuditRecordsTable): AuditRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    at: Number(row.at),
    actorType: row.actor_type,
    actorId: row.actor_id,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    outcome: row.outcome,
    status: row.status === null ? null : Number(row.status),
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : null,
  };
}

const RECORD_COLUMNS = [
  'id',
  'tenant_id',
  'at',
  'actor_type',
  'actor_id',
  'action',
  'target_type',
  'target_id',
  'outcome',
  'status',
  'ip',
  'user_agent',
  'request_id',
  'details',
] as const satisfies readonly (keyof NewAuditRecord)[];

/**
 * Rows per insert statement, largest first: a batch of n rows is written as the binary
 * decomposition of n (200 = 128 + 64 + 8), so at most nine statement texts ever exist (prepared
 * once by node:sqlite's cache, and as named statements on PostgreSQL) and the largest binds
 * 256 × 14 parameters, well under either dialect's limit.
 */
const CHUNKS = [256, 128, 64, 32, 16, 8, 4, 2, 1] as const;

/** A statement text built once, sent as a named prepared statement on PostgreSQL. */
function prepared(text: string): CompiledQuery {
  registerPreparedStatement(text);
  return CompiledQuery.raw(text, []);
}

/** Whether anything waits in `audit_pending` (any process's). */
const PENDING_PROBE = prepared('select id from audit_pending limit 1');

const COLUMN_LIST = RECORD_COLUMNS.join(', ');

/** Moving `audit_pending` into the trail: one statement on PostgreSQL, a copy and a clear on SQLite. */
const MOVE = {
  postgres: prepared(
    `with moved as (delete from audit_pending returning ${COLUMN_LIST}) insert into audit_records (${COLUMN_LIST}) select ${COLUMN_LIST} from moved`,
  ),
  copy: prepared(`insert into audit_records (${COLUMN_LIST}) select ${COLUMN_LIST} from audit_pending`),
  clear: prepared('delete from audit_pending'),
};

type AuditQuery = SelectQueryBuilder<DB, 'audit_records', object>;

/** Where rows are written: the trail, or the pending rows of acts recorded in their transaction. */
export type AuditTable = 'audit_records' | 'audit_pending';

/**
 * The trail's queries. There is no update and no delete of a single record: rows leave only with
 * their tenant, by the retention purge (`purgeTenant`).
 */
export class AuditRepository {
  /** The insert of n rows per table, compiled by Kysely once per size (building it per batch cost more than running it). */
  readonly #inserts = new Map<string, string>();

  #insertSql(db: Executor, table: AuditTable, rows: number): string {
    const key = `${table} ${rows}`;
    let text = this.#inserts.get(key);
    if (text === undefined) {
      const placeholder = Object.fromEntries(RECORD_COLUMNS.map((c) => [c, c])) as unknown as NewAuditRecord;
      const compiled = db
        .insertInto(table)
        .values(Array.from({ length: rows }, () => placeholder))
        .compile();
      // Parameters are bound row by row in RECORD_COLUMNS order: check it, the values are passed that way.
      if (compiled.parameters.some((p, i) => p !== RECORD_COLUMNS[i % RECORD_COLUMNS.length]))
        throw new Error('audit insert: unexpected parameter order');
      text = compiled.sql;
      registerPreparedStatement(text);
      this.#inserts.set(key, text);
    }
    return text;
  }

  /**
   * Writes `rows` into the trail (a flushed batch of reads and refusals, an act recorded at once),
   * or into `audit_pending` (an act inside its transaction, moved into the trail by `movePending`).
   */
  async insert(db: Executor, rows: readonly NewAuditRecord[], table: AuditTable = 'audit_records'): Promise<void> {
    let at = 0;
    for (const size of CHUNKS) {
      while (rows.length - at >= size) {
        const values: unknown[] = new Array(size * RECORD_COLUMNS.length);
        let k = 0;
        for (let r = at; r < at + size; r++) {
          const row = rows[r]!;
          for (const column of RECORD_COLUMNS) values[k++] = row[column] ?? null;
        }
        await db.executeQuery(CompiledQuery.raw(this.#insertSql(db, table, size), values));
        at += size;
      }
    }
  }

  /**
   * Moves every row of `audit_pending` into `audit_records`, in one statement per table, so each
   * index of the trail takes the rows of many acts in one write. Committed rows only: a row moves
   * with its change or never. Concurrent movers (other processes) never move a row twice: on
   * PostgreSQL the delete claims the rows it returns (a second delete skips them once the first
   * commits); on SQLite the move is one write transaction, which holds the database's write lock.
   * Answers how many rows moved.
   */
  async movePending(db: Executor, dialect: DialectName): Promise<number> {
    return this.flushBatch(db, dialect, []);
  }

  /**
   * A flush in one write transaction: `rows` (buffered reads, refusals, failures) inserted into
   * `audit_records`, then every row waiting in `audit_pending` moved there. One commit, so each of
   * the trail's B-trees writes its last pages once per flush rather than once per statement (a
   * 200-row batch was three commits, each rewriting the same right-edge pages of seven B-trees).
   * Nothing is written when there is nothing to write. Answers how many pending rows moved.
   */
  async flushBatch(db: Executor, dialect: DialectName, rows: readonly NewAuditRecord[]): Promise<number> {
    // The probe reads at most one row of a table that is empty between flushes.
    const waiting = (await db.executeQuery(PENDING_PROBE)).rows.length > 0;
    if (!waiting && rows.length === 0) return 0;
    if (!waiting) {
      // Reads only: one transaction around the batch's statements (at most nine), one commit.
      if (rows.length === 1) await this.insert(db, rows);
      else await db.transaction().execute((trx) => this.insert(trx, rows));
      return 0;
    }
    if (dialect === 'postgres') {
      // `delete … returning` into the insert: one statement, so two processes never move a row twice.
      return db.transaction().execute(async (trx) => {
        await this.insert(trx, rows);
        return Number((await trx.executeQuery(MOVE.postgres)).numAffectedRows ?? 0);
      });
    }
    return db.transaction().execute(async (trx) => {
      await this.insert(trx, rows);
      const moved = await trx.executeQuery(MOVE.copy);
      await trx.executeQuery(MOVE.clear);
      return Number(moved.numAffectedRows ?? 0);
    });
  }

  #filtered(db: Executor, tenantId: string, filter: AuditFilter): AuditQuery {
    let q = db.selectFrom('audit_records').where('tenant_id', '=', tenantId);
    if (filter.actorId !== undefined) q = q.where('actor_id', '=', filter.actorId);
    if (filter.documentId !== undefined)
      q = q.where('target_id', '=', filter.documentId).where('target_type', '=', 'document');
    if (filter.action !== undefined) q = q.where('action', '=', filter.action);
    if (filter.from !== undefined) q = q.where('at', '>=', filter.from);
    if (filter.to !== undefined) q = q.where('at', '<', filter.to);
    return q;
  }

  /** A page, newest first. */
  async list(
    db: Executor,
    tenantId: string,
    filter: AuditFilter,
    limit: number,
    offset: number,
  ): Promise<AuditRecord[]> {
    const rows = await this.#filtered(db, tenantId, filter)
      .selectAll()
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toAuditRecord);
  }

  /** How many records match, counted up to `cap` (a count over millions of rows would cost more than the page). */
  async countUpTo(db: Executor, tenantId: string, filter: AuditFilter, cap: number): Promise<number> {
    const inner = this.#filtered(db, tenantId, filter).select(sql<number>`1`.as('one')).limit(cap);
    const row = await db
      .selectFrom(inner.as('capped'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The next `limit` records after `cursor` (newest first): the export's keyset walk. */
  async after(
    db: Executor,
    tenantId: string,
    filter: AuditFilter,
    cursor: AuditCursor | null,
    limit: number,
  ): Promise<AuditRecord[]> {
    let q = this.#filtered(db, tenantId, filter);
    if (cursor) {
      q = q.where((eb) =>
        eb.or([eb('at', '<', cursor.at), eb.and([eb('at', '=', cursor.at), eb('id', '<', cursor.id)])]),
      );
    }
    const rows = await q.selectAll().orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toAuditRecord);
  }

  /** Every tenant that has records (a loose index scan over `audit_records_tenant_at`: one probe per tenant). */
  async tenantsWithRecords(db: Executor): Promise<string[]> {
    const result = await sql<{ tenant_id: string | null }>`
      with recursive t(tenant_id) as (
        select min(tenant_id) from audit_records
        union all
        select (select min(a.tenant_id) from audit_records a where a.tenant_id > t.tenant_id) from t where t.tenant_id is not null
      )
      select tenant_id from t where tenant_id is not null`.execute(db);
    return result.rows.map((r) => r.tenant_id as string);
  }

  async deletedTenants(db: Executor): Promise<{ tenantId: string; deletedAt: number }[]> {
    const rows = await db.selectFrom('audit_tenant_deletions').selectAll().execute();
    return rows.map((r) => ({ tenantId: r.tenant_id, deletedAt: Number(r.deleted_at) }));
  }

  /** Notes a tenant's deletion (the first note wins: the retention runs from the deletion). */
  async noteTenantDeleted(db: Executor, tenantId: string, at: number): Promise<void> {
    await db
      .insertInto('audit_tenant_deletions')
      .values({ tenant_id: tenantId, deleted_at: at })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
  }

  /** Deletes up to `batch` records of a deleted tenant; answers how many went. */
  async purgeTenant(db: Executor, tenantId: string, batch: number): Promise<number> {
    const ids = db.selectFrom('audit_records').select('id').where('tenant_id', '=', tenantId).limit(batch);
    const result = await db.deleteFrom('audit_records').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async forgetTenantDeletion(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('audit_tenant_deletions').where('tenant_id', '=', tenantId).execute();
  }
}
