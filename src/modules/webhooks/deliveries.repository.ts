import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DeliveryStatus, WebhookDeliveriesTable, WebhooksTable } from './webhooks.tables.ts';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDeliveryRow = Insertable<WebhookDeliveriesTable>;

/** What a delivery job needs in one read: the attempt, its webhook and the event's data. */
export interface DeliveryToSend {
  delivery: DeliveryRow;
  webhook: { url: string; secret: string; status: string; consecutiveFailures: number; failingSince: number | null; circuitOpenUntil: number | null };
  /** JSON data: the events row's, or the attempt's own payload (test pings); null when the event is gone. */
  data: string | null;
}

/** A webhook's columns as a delivery needs them (numbers as numbers whatever the driver returns). */
export function webhookToSend(
  w: Pick<Selectable<WebhooksTable>, 'url' | 'secret' | 'status' | 'consecutive_failures' | 'failing_since' | 'circuit_open_until'>,
): DeliveryToSend['webhook'] {
  return {
    url: w.url,
    secret: w.secret,
    status: w.status,
    consecutiveFailures: Number(w.consecutive_failures),
    failingSince: w.failing_since === null ? null : Number(w.failing_since),
    circuitOpenUntil: w.circuit_open_until === null ? null : Number(w.circuit_open_until),
  };
}

/** How an attempt ended. */
export interface AttemptOutcome {
  status: Extract<DeliveryStatus, 'success' | 'failed'>;
  responseStatus: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  sentAt: number;
}

/** States in which an attempt's outcome may still be written (see recordOutcome). */
const RECORDABLE: DeliveryStatus[] = ['pending', 'cancelled'];

/** SQL for the delivery log (one row per attempt); every query takes the tenant. */
export class DeliveriesRepository {
  /**
   * Inserts first attempts, skipping any (webhook, event, attempt) already there: the fan-out runs
   * at least once per event, and this is what makes a second run add nothing. Returns those inserted.
   */
  async insertIfAbsent(db: Executor, rows: NewDeliveryRow[]): Promise<Pick<DeliveryRow, 'id' | 'webhook_id'>[]> {
    if (rows.length === 0) return [];
    return db
      .insertInto('webhook_deliveries')
      .values(rows)
      .onConflict((oc) => oc.columns(['tenant_id', 'webhook_id', 'event_id', 'attempt']).doNothing())
      .returning(['id', 'webhook_id'])
      .execute();
  }

  async insert(db: Executor, row: NewDeliveryRow): Promise<void> {
    await db.insertInto('webhook_deliveries').values(row).execute();
  }

  /** The attempts with their webhook and event data, in one read; missing ids are left out. */
  async findForSend(db: Executor, tenantId: string, ids: readonly string[]): Promise<DeliveryToSend[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', (join) => join.onRef('w.id', '=', 'd.webhook_id').onRef('w.tenant_id', '=', 'd.tenant_id'))
      .leftJoin('events as e', (join) => join.onRef('e.id', '=', 'd.event_id').onRef('e.tenant_id', '=', 'd.tenant_id'))
      .selectAll('d')
      .select([
        'w.url as w_url',
        'w.secret as w_secret',
        'w.status as w_status',
        'w.consecutive_failures as w_failures',
        'w.failing_since as w_failing_since',
        'w.circuit_open_until as w_open_until',
        'e.data as e_data',
      ])
      // The tenant is compared through a cast so that SQLite's planner finds the attempts by
      // primary key: with a plain `d.tenant_id = ?` next to `d.id in (...)` it walks the tenant's
      // whole delivery log instead (5 ms a read at 10,000 attempts). PostgreSQL plans both alike.
      .where(sql<string>`cast(d.tenant_id as text)`, '=', tenantId)
      .where('d.id', 'in', ids)
      .execute();
    return rows.map(({ w_url, w_secret, w_status, w_failures, w_failing_since, w_open_until, e_data, ...delivery }) => ({
      delivery,
      webhook: webhookToSend({
        url: w_url,
        secret: w_secret,
        status: w_status,
        consecutive_failures: w_failures,
        failing_since: w_failing_since,
        circuit_open_until: w_open_until,
      }),
      data: delivery.payload ?? e_data,
    }));
  }

  /** An event's first attempts at these webhooks that are still pending (a second fan-out of the event looks for them). */
  async pendingFirstAttempts(db: Executor, tenantId: string, eventId: string, webhookIds: readonly string[]): Promise<Pick<DeliveryRow, 'id' | 'webhook_id'>[]> {
    if (webhookIds.length === 0) return [];
    return db
      .selectFrom('webhook_deliveries')
      .select(['id', 'webhook_id'])
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', 'in', webhookIds)
      .where('event_id', '=', eventId)
      .where('attempt', '=', 1)
      .where('status', '=', 'pending')
      .execute();
  }

  async findById(db: Executor, tenantId: string, webhookId: string, id: string): Promise<DeliveryRow | null> {
    return (
      (await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .executeTakeFirst()) ?? null
    );
  }

  /** Newest first, optionally only one status and/or one event name. */
  async list(
    db: Executor,
    tenantId: string,
    webhookId: string,
    filter: { status?: string | undefined; event?: string | undefined },
    page: { limit: number; offset: number },
  ): Promise<{ rows: DeliveryRow[]; total: number }> {
    let base = db.selectFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId);
    if (filter.status !== undefined) base = base.where('status', '=', filter.status as DeliveryStatus);
    if (filter.event !== undefined) base = base.where('event', '=', filter.event);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** The highest attempt number of an event at a webhook (0 when none). */
  async lastAttempt(db: Executor, tenantId: string, webhookId: string, eventId: string): Promise<number> {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.max('attempt').as('n'))
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * Writes how an attempt ended. A pending attempt, or one cancelled while it was already on the
   * wire (the webhook was paused meanwhile): the log says what really happened. False when
   * another run of the job recorded it first.
   */
  async recordOutcome(db: Executor, tenantId: string, id: string, outcome: AttemptOutcome): Promise<boolean> {
    const result = await db
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        response_excerpt: outcome.responseExcerpt,
        error: outcome.error,
        sent_at: outcome.sentAt,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', 'in', RECORDABLE)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * `recordOutcome` for many attempts (of any tenants) in one statement: an UPDATE joined to a
   * VALUES list, which both dialects run. Returns the ids it wrote (the others were recorded already).
   */
  async recordOutcomes(db: Executor, items: readonly { tenantId: string; id: string; outcome: AttemptOutcome }[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const values = sql.join(
      items.map(
        ({ tenantId, id, outcome: o }) =>
          sql`(${tenantId}, ${id}, ${o.status}, ${o.responseStatus}, ${o.durationMs}, ${o.responseExcerpt}, ${o.error}, ${o.sentAt})`,
      ),
    );
    // The VALUES columns are named apart from the table's (o_*): PostgreSQL would find a bare
    // `id` or `status` ambiguous. Parameters arrive untyped in PostgreSQL's VALUES, hence the casts.
    const result = await sql<{ id: string }>`
      with o (o_tenant_id, o_id, o_status, o_response_status, o_duration_ms, o_response_excerpt, o_error, o_sent_at) as (values ${values})
      update webhook_deliveries set
        status = o_status,
        response_status = cast(o_response_status as integer),
        duration_ms = cast(o_duration_ms as integer),
        response_excerpt = o_response_excerpt,
        error = o_error,
        sent_at = cast(o_sent_at as bigint)
      from o
      where tenant_id = o_tenant_id and id = o_id and status in ('pending', 'cancelled')
      returning id`.execute(db);
    return new Set(result.rows.map((r) => r.id));
  }

  async setNextRetry(db: Executor, tenantId: string, id: string, at: number): Promise<void> {
    await db.updateTable('webhook_deliveries').set({ next_retry_at: at }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async appendError(db: Executor, tenantId: string, id: string, error: string): Promise<void> {
    await db.updateTable('webhook_deliveries').set({ error }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** Cancels a webhook's automatic attempts not yet sent (paused or disabled: no backlog on resume). */
  async cancelPending(db: Executor, tenantId: string, webhookId: string, reason: string): Promise<number> {
    const result = await db
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', error: reason })
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'pending')
      .where('trigger', 'in', ['event', 'retry'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Cancels one attempt that is still pending (its webhook stopped being active before it was sent). */
  async cancel(db: Executor, tenantId: string, id: string, reason: string): Promise<void> {
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', error: reason })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }
}
