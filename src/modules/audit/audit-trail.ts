import { AsyncLocalStorage } from 'node:async_hooks';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { ACTIONS, type AuditActionName, type AuditActionSpec } from './audit-actions.ts';
import type { AuditRepository, NewAuditRecord } from './audit.repository.ts';

export type AuditOutcome = 'success' | 'denied' | 'failed';

/** Who acted. */
export interface AuditActor {
  type: 'user' | 'api_key' | 'platform_admin' | 'system';
  id: string | null;
}

/** Where a request came from, and which. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/**
 * The audit scope of one API request, entered by the hook of audit-http.ts before the handler
 * runs, so code deep in a service can record against the request without it being passed down.
 */
export interface AuditScope {
  auth: AuthContext | null;
  origin: RequestOrigin;
  /** The route's declared action, if any. */
  spec: AuditActionSpec | null;
  /** Set when the route's act was recorded inside its transaction (`recordIn`): the hook then writes nothing on success. */
  recordedInTransaction: boolean;
}

/** One act to record, as services and hooks describe it. */
export interface AuditEntry {
  tenantId: string;
  actor: AuditActor;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  outcome: AuditOutcome;
  status?: number | null;
  origin?: RequestOrigin | null;
  details?: Record<string, unknown> | null;
  at?: number;
}

export const NO_ORIGIN: RequestOrigin = { ip: null, userAgent: null, requestId: null };

/** The actor of an authenticated caller. */
export function actorOf(auth: Pick<AuthContext, 'userId' | 'apiKeyId'>): AuditActor {
  if (auth.userId !== null) return { type: 'user', id: auth.userId };
  if (auth.apiKeyId !== null) return { type: 'api_key', id: auth.apiKeyId };
  return { type: 'system', id: null };
}

export interface AuditTrailOptions {
  repository: AuditRepository;
  /** Where buffered reads are flushed to (the database, not a transaction). */
  db: () => Executor;
  /** The database's dialect (moving pending rows is one statement on PostgreSQL, a transaction on SQLite). */
  dialect: DialectName;
  clock: Clock;
  logger: Logger;
  /** Flush when this many reads are buffered. */
  bufferSize: number;
  /** ...or this long after the first buffered one. */
  flushMs: number;
  /**
   * Whether an object of `type` exists in the tenant: a 404 on one that does hid it from the caller
   * (a refusal). Looked up when a 404 happens (the documents module is set up after this one).
   */
  exists?: (type: string, tenantId: string, id: string) => Promise<boolean>;
}

/** The error codes of a 403 that refused access (as opposed to, say, a tier limit). */
export const DENIAL_CODES: ReadonlySet<string> = new Set(['forbidden', 'insufficient_permissions']);

/** Buffered records kept while the database refuses them, at most (older ones are dropped and logged). */
const MAX_PENDING = 50_000;

/**
 * The audit trail's writer, published as `audit` to the modules (docs/audit.md):
 *
 * - `recordIn(trx, ...)`: the current request's act, inside the caller's transaction (commits or
 *   rolls back with the change). One line in a transactional service:
 *   `await audit.recordIn(trx, { targetId: version.documentId, details: { version: n } })`.
 * - `record(executor, entry)`: any act, written at once with `executor`.
 * - `read(auth, action, target)`: a read of content, buffered and flushed in batches.
 */
export class AuditTrail {
  readonly #opts: AuditTrailOptions;
  readonly #scope = new AsyncLocalStorage<AuditScope>();
  #buffer: NewAuditRecord[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(opts: AuditTrailOptions) {
    this.#opts = opts;
  }

  /** Runs `fn` (the rest of a request) inside `scope`. */
  enter(scope: AuditScope, fn: () => void): void {
    this.#scope.run(scope, fn);
  }

  /** The current request's scope, if the code runs inside one. */
  scope(): AuditScope | undefined {
    return this.#scope.getStore();
  }

  /** The database records are written to outside a transaction. */
  database(): Executor {
    return this.#opts.db();
  }

  /** Turns an entry into a row. */
  row(entry: AuditEntry): NewAuditRecord {
    const at = entry.at ?? this.#opts.clock.now();
    const origin = entry.origin ?? NO_ORIGIN;
    return {
      id: newId(at),
      tenant_id: entry.tenantId,
      at,
      actor_type: entry.actor.type,
      actor_id: entry.actor.id,
      action: entry.action,
      target_type: entry.targetType ?? null,
      target_id: entry.targetId ?? null,
      outcome: entry.outcome,
      status: entry.status ?? null,
      ip: origin.ip,
      user_agent: origin.userAgent,
      request_id: origin.requestId,
      details: entry.details ? JSON.stringify(entry.details) : null,
    };
  }

  /** Writes one record now, with `executor` (the database, or the caller's transaction). */
  async record(executor: Executor, entry: AuditEntry): Promise<void> {
    await this.#opts.repository.insert(executor, [this.row(entry)]);
  }

  /**
   * Writes one record inside the caller's transaction into `audit_pending` (one narrow row; it
   * commits or rolls back with the change), which the next flush moves into the trail.
   */
  async #recordPending(trx: Executor, entry: AuditEntry): Promise<void> {
    await this.#opts.repository.insert(trx, [this.row(entry)], 'audit_pending');
    this.#schedule();
  }

  /**
   * Records the current request's declared act inside the caller's transaction, so the record
   * exists exactly when the change does. The route's hook then records only a failure. Outside a
   * request (a job), or with `action` given, records that action as the system or the scope's caller.
   */
  async recordIn(
    trx: Executor,
    entry: {
      tenantId?: string;
      action?: AuditActionName | string;
      targetType?: string;
      targetId?: string | null;
      details?: Record<string, unknown>;
    } = {},
  ): Promise<void> {
    const scope = this.scope();
    const spec = entry.action ? (ACTIONS[entry.action as AuditActionName] ?? null) : (scope?.spec ?? null);
    const action = entry.action ?? spec?.action;
    const tenantId = entry.tenantId ?? scope?.auth?.tenant.id;
    if (!action || !tenantId) return;
    await this.#recordPending(trx, {
      tenantId,
      actor: scope?.auth ? actorOf(scope.auth) : { type: 'system', id: null },
      action,
      targetType: entry.targetType ?? spec?.target ?? null,
      targetId: entry.targetId ?? null,
      outcome: 'success',
      status: null,
      origin: scope?.origin ?? null,
      details: entry.details ?? null,
    });
    // Only the route's own act replaces the hook's record; other acts recorded on the way do not.
    if (scope && (!entry.action || entry.action === scope.spec?.action)) scope.recordedInTransaction = true;
  }

  /** Records a read of content (buffered): chat citations and MCP reads call this with the caller's context. */
  read(
    auth: AuthContext,
    action: AuditActionName | string,
    target: { type: string; id: string },
    details?: Record<string, unknown>,
  ): void {
    this.buffer(
      this.row({
        tenantId: auth.tenant.id,
        actor: actorOf(auth),
        action,
        targetType: target.type,
        targetId: target.id,
        outcome: 'success',
        origin: this.scope()?.origin ?? null,
        details: details ?? null,
      }),
    );
  }

  /**
   * A refusal met inside a call that is not an HTTP answer of its own (an MCP tool or resource,
   * whose request answers 200 with a tool error): recorded as `access.denied` the way the HTTP hook
   * records a refused request (audit-http.ts): a 403 `forbidden`/`insufficient_permissions`, or a 404
   * `not_found` on an object that exists (looked up after the call, off its path). Any other error is
   * no refusal and is not recorded. `details` says where (`via`, `tool`); the batch writes it.
   */
  refusal(
    auth: AuthContext,
    error: { status: number; error: string; details?: Record<string, unknown> | undefined },
    target: { type: string; id: string | null },
    details: Record<string, unknown>,
  ): void {
    const origin = this.scope()?.origin ?? null;
    const at = this.#opts.clock.now(); // when refused, not when the 404's lookup answered
    const add = (type: string, id: string | null) =>
      this.buffer(
        this.row({
          at,
          tenantId: auth.tenant.id,
          actor: actorOf(auth),
          action: 'access.denied',
          targetType: type,
          targetId: id,
          outcome: 'denied',
          status: error.status,
          origin,
          details,
        }),
      );
    if (error.status === 403 && DENIAL_CODES.has(error.error)) {
      add(target.type, target.id);
      return;
    }
    const type = error.details?.['resource_type'];
    const id = error.details?.['resource_id'];
    if (error.status !== 404 || error.error !== 'not_found' || typeof type !== 'string' || typeof id !== 'string')
      return;
    const exists = this.#opts.exists;
    if (!exists) return;
    void exists(type, auth.tenant.id, id).then(
      (found) => (found ? add(type, id) : undefined),
      () => undefined,
    );
  }

  /** Adds a record to the batch; the batch is written when full or `flushMs` after its first record. */
  buffer(row: NewAuditRecord): void {
    this.#buffer.push(row);
    if (this.#buffer.length >= this.#opts.bufferSize) void this.flush();
    else this.#schedule();
  }

  /** A flush `flushMs` from now, unless one is due already. */
  #schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => void this.flush(), this.#opts.flushMs);
    this.#timer.unref();
  }

  /** How many records wait in the batch. */
  pending(): number {
    return this.#buffer.length;
  }

  /**
   * Writes the batch now (one multi-row insert per chunk; a failure keeps it for the next flush),
   * then moves the changes recorded in their transactions (`audit_pending`, any process's) into
   * the trail.
   */
  async flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    // One flush at a time: a second caller waits for the running one, then writes what came since.
    while (this.#flushing) await this.#flushing;
    const rows = this.#buffer;
    this.#buffer = [];
    this.#flushing = this.#write(rows).finally(() => {
      this.#flushing = null;
    });
    await this.#flushing;
  }

  async #write(rows: NewAuditRecord[]): Promise<void> {
    const { repository, dialect } = this.#opts;
    const db = this.#opts.db();
    try {
      // The common case: the batch and the waiting changes in one write transaction, one commit.
      await repository.flushBatch(db, dialect, rows);
      return;
    } catch {
      // Written apart below, so that a move that keeps failing does not hold the reads back (or
      // the reverse); each failure is logged there.
    }
    if (rows.length > 0) await this.#insertBatch(db, rows);
    try {
      await repository.movePending(db, dialect);
    } catch (error) {
      // The rows stay in audit_pending (committed with their changes): the next flush moves them.
      this.#opts.logger.error(
        { err: error },
        'audit: could not move recorded changes into the trail; retried at the next flush',
      );
      this.#schedule();
    }
  }

  /** The batch on its own; a failure keeps it for the next flush (at most MAX_PENDING records). */
  async #insertBatch(db: Executor, rows: NewAuditRecord[]): Promise<void> {
    try {
      await this.#opts.repository.insert(db, rows);
    } catch (error) {
      const kept = [...rows, ...this.#buffer];
      const dropped = Math.max(0, kept.length - MAX_PENDING);
      this.#buffer = kept.slice(dropped);
      this.#opts.logger.error(
        { err: error, records: rows.length, dropped },
        'audit: could not write buffered records; kept for the next flush',
      );
      this.#schedule();
    }
  }

  /** At shutdown: writes what is buffered. */
  async close(): Promise<void> {
    await this.flush();
  }
}
