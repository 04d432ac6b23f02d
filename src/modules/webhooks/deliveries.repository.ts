import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DeliverableEventName, EventData } from '../../events/event-catalogue.ts';
import { eventDataOf } from '../../events/event-data.ts';
import { newId } from '../../lib/ids.ts';
import { parseJson } from '../../lib/json.ts';
import type { WebhookTarget } from './webhooks.repository.ts';
import type { DeliveryStatus, DeliveryTrigger, WebhookDeliveriesTable } from './webhooks.tables.ts';

/** The data of an event, as its envelope carries it: one of the declared events' data (or the test ping's). */
export type EventPayload = EventData<DeliverableEventName>;

/** One delivery attempt as services see it. */
export interface Delivery {
  /** This attempt's id: the X-Service-Delivery header. */
  id: string;
  tenantId: string;
  webhookId: string;
  /** X-Service-Event-Id: the same on every attempt of an event. */
  eventId: string;
  event: string;
  eventAt: number;
  /** The data of events without an events row (test pings); null: the events row holds it. */
  payload: EventPayload | null;
  attempt: number;
  trigger: DeliveryTrigger;
  /** Automatic attempts: delays of the retry schedule used before this one (0 for the first). Null for manual ones. */
  retryIndex: number | null;
  status: DeliveryStatus;
  responseStatus: number | null;
  durationMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  /** When the automatic retry following this failed attempt is due. */
  nextRetryAt: number | null;
  scheduledAt: number;
  sentAt: number | null;
  createdAt: number;
}

/** What identifies a new attempt: everything else of it starts out pending and unsent. */
export type NewDelivery = Pick<
  Delivery,
  'tenantId' | 'webhookId' | 'eventId' | 'event' | 'eventAt' | 'payload' | 'attempt' | 'trigger' | 'retryIndex'
>;

/** A new attempt, due at `now`, not sent yet. */
export function pendingDelivery(input: NewDelivery, now: number): Delivery {
  return {
    id: newId(now),
    ...input,
    status: 'pending',
    responseStatus: null,
    durationMs: null,
    responseExcerpt: null,
    error: null,
    nextRetryAt: null,
    scheduledAt: now,
    sentAt: null,
    createdAt: now,
  };
}

/** One literal per row: every attempt a delivery job sends is read through here. */
export function toDelivery(row: Selectable<WebhookDeliveriesTable>): Delivery {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    event: row.event,
    eventAt: row.event_at,
    payload: parseJson<EventPayload | null>(row.payload, null),
    attempt: row.attempt,
    trigger: row.trigger,
    retryIndex: row.retry_index,
    status: row.status,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    responseExcerpt: row.response_excerpt,
    error: row.error,
    nextRetryAt: row.next_retry_at,
    scheduledAt: row.scheduled_at,
    sentAt: row.sent_at,
    createdAt: row.created_at,
  };
}

/**
 * The inverse of `toDelivery`. A literal rather than a ColumnMap: attempts are only ever inserted
 * whole (never patched field by field), and the fan-out writes one per webhook of every event.
 */
function toRow(d: Delivery): Insertable<WebhookDeliveriesTable> {
  return {
    id: d.id,
    tenant_id: d.tenantId,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event: d.event,
    event_at: d.eventAt,
    payload: d.payload === null ? null : JSON.stringify(d.payload),
    attempt: d.attempt,
    trigger: d.trigger,
    retry_index: d.retryIndex,
    status: d.status,
    response_status: d.responseStatus,
    duration_ms: d.durationMs,
    response_excerpt: d.responseExcerpt,
    error: d.error,
    next_retry_at: d.nextRetryAt,
    scheduled_at: d.scheduledAt,
    sent_at: d.sentAt,
    created_at: d.createdAt,
  };
}

/** An attempt's id and webhook: what the fan-out needs to know of those it inserted. */
export type DeliveryRef = Pick<Delivery, 'id' | 'webhookId'>;

function toRef(row: Pick<Selectable<WebhookDeliveriesTable>, 'id' | 'webhook_id'>): DeliveryRef {
  return { id: row.id, webhookId: row.webhook_id };
}

/** What a delivery job needs in one read: the attempt, its webhook and the event's data. */
export interface DeliveryToSend {
  delivery: Delivery;
  webhook: WebhookTarget;
  /** The events row's data, or the attempt's own payload (test pings); null when the event is gone. */
  data: EventPayload | null;
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
  async insertIfAbsent(db: Executor, deliveries: readonly Delivery[]): Promise<DeliveryRef[]> {
    if (deliveries.length === 0) return [];
    const rows = await db
      .insertInto('webhook_deliveries')
      .values(deliveries.map(toRow))
      .onConflict((oc) => oc.columns(['tenant_id', 'webhook_id', 'event_id', 'attempt']).doNothing())
      .returning(['id', 'webhook_id'])
      .execute();
    return rows.map(toRef);
  }

  async insert(db: Executor, delivery: Delivery): Promise<void> {
    await db.insertInto('webhook_deliveries').values(toRow(delivery)).execute();
  }

  /**
   * The attempts with their webhook and event data, in one read; missing ids are left out. The
   * event's data is the event log's subquery (src/events owns the table), selected in this
   * statement: one statement per job is what keeps deliveries cheap on PostgreSQL.
   */
  async findForSend(db: Executor, tenantId: string, ids: readonly string[]): Promise<DeliveryToSend[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', (join) =>
        join.onRef('w.id', '=', 'd.webhook_id').onRef('w.tenant_id', '=', 'd.tenant_id'),
      )
      .selectAll('d')
      .select([
        'w.url as w_url',
        'w.secret as w_secret',
        'w.status as w_status',
        'w.consecutive_failures as w_failures',
        'w.failing_since as w_failing_since',
        'w.circuit_open_until as w_open_until',
        eventDataOf('d.event_id', 'd.tenant_id').as('e_data'),
      ])
      // The tenant is compared through a cast so that SQLite's planner finds the attempts by
      // primary key: with a plain `d.tenant_id = ?` next to `d.id in (...)` it walks the tenant's
      // whole delivery log instead (5 ms a read at 10,000 attempts). PostgreSQL plans both alike.
      .where(sql<string>`cast(d.tenant_id as text)`, '=', tenantId)
      .where('d.id', 'in', ids)
      .execute();
    return rows.map((row) => {
      const delivery = toDelivery(row);
      return {
        delivery,
        webhook: {
          url: row.w_url,
          secret: row.w_secret,
          status: row.w_status,
          consecutiveFailures: row.w_failures,
          failingSince: row.w_failing_since,
          circuitOpenUntil: row.w_open_until,
        },
        data: delivery.payload ?? parseJson<EventPayload | null>(row.e_data, null),
      };
    });
  }

  /** An event's first attempts at these webhooks that are still pending (a second fan-out of the event looks for them). */
  async pendingFirstAttempts(
    db: Executor,
    tenantId: string,
    eventId: string,
    webhookIds: readonly string[],
  ): Promise<DeliveryRef[]> {
    if (webhookIds.length === 0) return [];
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'webhook_id'])
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', 'in', webhookIds)
      .where('event_id', '=', eventId)
      .where('attempt', '=', 1)
      .where('status', '=', 'pending')
      .execute();
    return rows.map(toRef);
  }

  async findById(db: Executor, tenantId: string, webhookId: string, id: string): Promise<Delivery | null> {
    const row = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toDelivery(row) : null;
  }

  /** Newest first, optionally only one status and/or one event name. */
  async list(
    db: Executor,
    tenantId: string,
    webhookId: string,
    filter: { status?: string | undefined; event?: string | undefined },
    page: { limit: number; offset: number },
  ): Promise<{ deliveries: Delivery[]; total: number }> {
    let base = db
      .selectFrom('webhook_deliveries')
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId);
    if (filter.status !== undefined) base = base.where('status', '=', filter.status as DeliveryStatus);
    if (filter.event !== undefined) base = base.where('event', '=', filter.event);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { deliveries: rows.map(toDelivery), total: Number(count.n) };
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
  async recordOutcomes(
    db: Executor,
    items: readonly { tenantId: string; id: string; outcome: AttemptOutcome }[],
  ): Promise<Set<string>> {
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
    await db
      .updateTable('webhook_deliveries')
      .set({ next_retry_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async appendError(db: Executor, tenantId: string, id: string, error: string): Promise<void> {
    await db
      .updateTable('webhook_deliveries')
      .set({ error })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
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
