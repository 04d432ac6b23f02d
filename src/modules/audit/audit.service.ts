import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { isTenantAdmin } from '../../domain/roles.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { AuditCursor, AuditFilter, AuditRecord, AuditRepository } from './audit.repository.ts';
import type { AuditTrail } from './audit-trail.ts';

/** `total` is counted up to this many records; past it the answer says `total_capped` (docs/audit.md). */
export const AUDIT_COUNT_CAP = 10_000;
/** Pages reach at most this deep (`page * page_size`); older records are reached with `to=` or the export. */
export const AUDIT_PAGE_DEPTH = 10_000;
/** Records per statement of an export's walk. */
const EXPORT_CHUNK = 1_000;
/** Records of a deleted tenant removed per statement, and per purge run at most. */
const PURGE_BATCH = 5_000;
const PURGE_RUN_LIMIT = 500_000;

export interface AuditListQuery extends AuditFilter {
  page: number;
  pageSize: number;
}

export interface AuditServiceDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  repository: AuditRepository;
  trail: AuditTrail;
  retentionMs: number;
  /** Whether a tenant still exists (identity's tenant directory). */
  tenantExists: (tenantId: string) => Promise<boolean>;
}

/** Reading the trail (`GET /audit`, the export) and its retention purge. Nothing here changes a record. */
export class AuditService {
  readonly #d: AuditServiceDeps;

  constructor(deps: AuditServiceDeps) {
    this.#d = deps;
  }

  /** Owners, admins and API keys read the tenant's trail; everyone else only their own records. */
  #scoped(auth: AuthContext, filter: AuditFilter): AuditFilter {
    if (isTenantAdmin(auth)) return filter;
    if (filter.actorId !== undefined && filter.actorId !== auth.userId) {
      throw errors.forbidden('Only owners and admins may read the records of other people');
    }
    return { ...filter, actorId: auth.userId ?? '' };
  }

  #check(filter: AuditFilter): void {
    if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
      throw errors.field('from', 'must be before to');
    }
  }

  async list(
    auth: AuthContext,
    query: AuditListQuery,
  ): Promise<{ rows: AuditRecord[]; total: number; capped: boolean }> {
    const { page, pageSize, ...raw } = query;
    this.#check(raw);
    if (page * pageSize > AUDIT_PAGE_DEPTH) {
      throw errors.field(
        'page',
        `pages reach the newest ${AUDIT_PAGE_DEPTH} records; narrow with from/to or use GET /audit/export`,
      );
    }
    const filter = this.#scoped(auth, raw);
    // Reads recorded by this process show at once (other processes flush within AUDIT_FLUSH_MS).
    await this.#d.trail.flush();
    const db = this.#d.database.db;
    const [rows, counted] = await Promise.all([
      this.#d.repository.list(db, auth.tenant.id, filter, pageSize, (page - 1) * pageSize),
      this.#d.repository.countUpTo(db, auth.tenant.id, filter, AUDIT_COUNT_CAP + 1),
    ]);
    return { rows, total: Math.min(counted, AUDIT_COUNT_CAP), capped: counted > AUDIT_COUNT_CAP };
  }

  /**
   * Every matching record, newest first, read in chunks by keyset (constant memory, any size).
   * Checks the caller and the filters before answering, so a refusal is an error answer, not a broken stream.
   */
  async openExport(auth: AuthContext, raw: AuditFilter): Promise<AsyncIterable<AuditRecord>> {
    this.#check(raw);
    const filter = this.#scoped(auth, raw);
    await this.#d.trail.flush();
    const { repository, database } = this.#d;
    return (async function* walk() {
      let cursor: AuditCursor | null = null;
      for (;;) {
        const rows = await repository.after(database.db, auth.tenant.id, filter, cursor, EXPORT_CHUNK);
        for (const row of rows) yield row;
        if (rows.length < EXPORT_CHUNK) return;
        const last = rows[rows.length - 1]!;
        cursor = { at: last.at, id: last.id };
      }
    })();
  }

  /** The deletion path of a tenant calls this (in its transaction): the records go `AUDIT_RETENTION_DAYS` later. */
  async tenantDeleted(tenantId: string, executor = this.#d.database.db): Promise<void> {
    await this.#d.repository.noteTenantDeleted(executor, tenantId, this.#d.clock.now());
  }

  /**
   * The worker's purge (`audit.purge`): notes tenants that no longer exist, then removes the
   * records of those deleted longer than the retention ago, in batches. Answers how many went.
   */
  async purgeExpired(): Promise<number> {
    const db = this.#d.database.db;
    const now = this.#d.clock.now();
    const noted = new Set((await this.#d.repository.deletedTenants(db)).map((d) => d.tenantId));
    for (const tenantId of await this.#d.repository.tenantsWithRecords(db)) {
      if (!noted.has(tenantId) && !(await this.#d.tenantExists(tenantId)))
        await this.#d.repository.noteTenantDeleted(db, tenantId, now);
    }
    let purged = 0;
    for (const { tenantId, deletedAt } of await this.#d.repository.deletedTenants(db)) {
      if (deletedAt + this.#d.retentionMs > now) continue;
      for (;;) {
        const n = await this.#d.repository.purgeTenant(db, tenantId, PURGE_BATCH);
        purged += n;
        if (n < PURGE_BATCH) {
          await this.#d.repository.forgetTenantDeletion(db, tenantId);
          break;
        }
        if (purged >= PURGE_RUN_LIMIT) return purged; // the next run continues
      }
    }
    if (purged > 0)
      this.#d.logger.info({ purged }, 'audit: purged the records of deleted tenants past their retention');
    return purged;
  }
}
