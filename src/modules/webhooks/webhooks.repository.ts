import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { WebhooksTable } from './webhooks.tables.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookPatch = Updateable<WebhooksTable>;

/** SQL for webhooks; every query takes the tenant. */
export class WebhooksRepository {
  async insert(db: Executor, row: Insertable<WebhooksTable>): Promise<void> {
    await db.insertInto('webhooks').values(row).execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<WebhookRow | null> {
    return (await db.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async list(db: Executor, tenantId: string, page: { limit: number; offset: number }): Promise<{ rows: WebhookRow[]; total: number }> {
    const base = db.selectFrom('webhooks').where('tenant_id', '=', tenantId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  async count(db: Executor, tenantId: string): Promise<number> {
    const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Active webhooks that existed at `at`: the fan-out's candidates (the event filter is applied by
   * the caller), with what it needs to send to them at once.
   */
  async listActiveAt(
    db: Executor,
    tenantId: string,
    at: number,
  ): Promise<Pick<WebhookRow, 'id' | 'events' | 'url' | 'secret' | 'status' | 'consecutive_failures' | 'failing_since' | 'circuit_open_until'>[]> {
    return db
      .selectFrom('webhooks')
      .select(['id', 'events', 'url', 'secret', 'status', 'consecutive_failures', 'failing_since', 'circuit_open_until'])
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'active')
      .where('created_at', '<=', at)
      .execute();
  }

  async update(db: Executor, tenantId: string, id: string, patch: WebhookPatch): Promise<boolean> {
    const result = await db.updateTable('webhooks').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    await db.deleteFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('webhook_id', '=', id).execute();
    const result = await db.deleteFrom('webhooks').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Counts one more failed automatic attempt; returns the streak as it now stands. */
  async recordFailure(
    db: Executor,
    tenantId: string,
    id: string,
    now: number,
  ): Promise<{ failingSince: number; consecutiveFailures: number; status: string } | null> {
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
    return row ? { failingSince: Number(row.failing_since), consecutiveFailures: Number(row.consecutive_failures), status: row.status } : null;
  }

  async openCircuit(db: Executor, tenantId: string, id: string, until: number): Promise<void> {
    await db.updateTable('webhooks').set({ circuit_open_until: until }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** Ends a failure streak; writes nothing when there was none (the common case costs no write). */
  async recordSuccess(db: Executor, tenantId: string, id: string): Promise<void> {
    await db
      .updateTable('webhooks')
      .set({ consecutive_failures: 0, failing_since: null, circuit_open_until: null })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where((eb) => eb.or([eb('consecutive_failures', '>', 0), eb('failing_since', 'is not', null), eb('circuit_open_until', 'is not', null)]))
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
