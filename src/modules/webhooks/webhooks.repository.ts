import type { Insertable, Selectable } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import { parseEventList } from './webhook-events.ts';
import type { WebhookStatus, WebhooksTable } from './webhooks.tables.ts';

/** A webhook as services see it: its event list parsed, its secret still sealed. */
export interface Webhook {
  id: string;
  tenantId: string;
  url: string;
  events: string[];
  /** The signing secret, sealed with the module's key (secret-box.ts). */
  secret: string;
  status: WebhookStatus;
  /** Why the service disabled it; null otherwise. */
  statusReason: string | null;
  /** Start of the current run of failed automatic attempts; null while the endpoint is healthy. */
  failingSince: number | null;
  consecutiveFailures: number;
  /** While in the future, automatic deliveries wait instead of trying a failing endpoint. */
  circuitOpenUntil: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What an update may change. */
export type WebhookPatch = Partial<Omit<Webhook, 'id' | 'tenantId' | 'createdAt'>>;

/** Where and how to send to a webhook, and its health: what an attempt needs of it. */
export type WebhookTarget = Pick<
  Webhook,
  'url' | 'secret' | 'status' | 'consecutiveFailures' | 'failingSince' | 'circuitOpenUntil'
>;

export function toWebhook(row: Selectable<WebhooksTable>): Webhook {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    events: parseEventList(row.events),
    secret: row.secret,
    status: row.status,
    statusReason: row.status_reason,
    failingSince: row.failing_since,
    consecutiveFailures: row.consecutive_failures,
    circuitOpenUntil: row.circuit_open_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** How each field is stored: the inverse of `toWebhook`, for inserts and patches. */
const COLUMNS: ColumnMap<Webhook, WebhooksTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  url: 'url',
  events: ['events', (v) => JSON.stringify(v)],
  secret: 'secret',
  status: 'status',
  statusReason: 'status_reason',
  failingSince: 'failing_since',
  consecutiveFailures: 'consecutive_failures',
  circuitOpenUntil: 'circuit_open_until',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** SQL for webhooks; every query takes the tenant. */
export class WebhooksRepository {
  async insert(db: Executor, webhook: Webhook): Promise<void> {
    // Every field of a Webhook maps to a column, so the values are a whole row.
    await db
      .insertInto('webhooks')
      .values(columnsOf(COLUMNS, webhook) as Insertable<WebhooksTable>)
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<Webhook | null> {
    const row = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toWebhook(row) : null;
  }

  async list(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
  ): Promise<{ webhooks: Webhook[]; total: number }> {
    const base = db.selectFrom('webhooks').where('tenant_id', '=', tenantId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { webhooks: rows.map(toWebhook), total: Number(count.n) };
  }

  async count(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Active webhooks that existed at `at`: the fan-out's candidates (the event filter is applied by
   * the caller), with what it needs to send to them at once.
   */
  async listActiveAt(db: Executor, tenantId: string, at: number): Promise<Webhook[]> {
    const rows = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'active')
      .where('created_at', '<=', at)
      .execute();
    return rows.map(toWebhook);
  }

  async update(db: Executor, tenantId: string, id: string, patch: WebhookPatch): Promise<boolean> {
    const result = await db
      .updateTable('webhooks')
      .set(columnsOf(COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    await db.deleteFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('webhook_id', '=', id).execute();
    const result = await db
      .deleteFrom('webhooks')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Counts one more failed automatic attempt; returns the streak as it now stands. */
  async recordFailure(
    db: Executor,
    tenantId: string,
    id: string,
    now: number,
  ): Promise<{ failingSince: number; consecutiveFailures: number; status: WebhookStatus } | null> {
    const row = await db
      .updateTable('webhooks')
      .set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', 1),
        failing_since: eb.fn.coalesce('failing_since', eb.val(now)),
      }))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returning(['failing_since', 'consecutive_failures', 'status'])
      .executeTakeFirst();
    return row
      ? {
          failingSince: Number(row.failing_since),
          consecutiveFailures: Number(row.consecutive_failures),
          status: row.status,
        }
      : null;
  }

  async openCircuit(db: Executor, tenantId: string, id: string, until: number): Promise<void> {
    await db
      .updateTable('webhooks')
      .set({ circuit_open_until: until })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Ends a failure streak; writes nothing when there was none (the common case costs no write). */
  async recordSuccess(db: Executor, tenantId: string, id: string): Promise<void> {
    await db
      .updateTable('webhooks')
      .set({ consecutive_failures: 0, failing_since: null, circuit_open_until: null })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('consecutive_failures', '>', 0),
          eb('failing_since', 'is not', null),
          eb('circuit_open_until', 'is not', null),
        ]),
      )
      .execute();
  }

  /** Sets an active webhook to disabled with the reason; false when it was not active any more. */
  async disable(db: Executor, tenantId: string, id: string, reason: string, now: number): Promise<boolean> {
    const result = await db
      .updateTable('webhooks')
      .set({ status: 'disabled', status_reason: reason, circuit_open_until: null, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('webhook_deliveries').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('webhooks').where('tenant_id', '=', tenantId).execute();
  }
}
