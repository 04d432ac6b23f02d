import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/lib/ids.ts';
import { type AttemptOutcome, DeliveriesRepository, type NewDeliveryRow } from '../../src/modules/webhooks/deliveries.repository.ts';
import type { DeliveryStatus } from '../../src/modules/webhooks/webhooks.tables.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';
import { createWebhook } from './helpers.ts';

// The batched outcome write (one statement for the attempts of many jobs and tenants) on both dialects.

const repo = new DeliveriesRepository();

describeEachDialect(
  'webhooks: deliveries repository',
  (ctx) => {
    async function attempt(tenant: TestTenant, webhookId: string, status: DeliveryStatus, n: number): Promise<string> {
      const now = Date.now();
      const row: NewDeliveryRow = {
        id: newId(now),
        tenant_id: tenant.tenantId,
        webhook_id: webhookId,
        event_id: `evt_${n}_${Math.random().toString(36).slice(2)}`,
        event: 'document.uploaded',
        event_at: now,
        payload: null,
        attempt: 1,
        trigger: 'event',
        retry_index: 0,
        status,
        scheduled_at: now,
        created_at: now,
      };
      await repo.insert(ctx().container.database.db, row);
      return row.id;
    }

    it('writes the outcomes of many attempts, of several tenants, in one call, and only those still recordable', async () => {
      const t = ctx();
      const db = t.container.database.db;
      const [a, b] = [await createTenant(t), await createTenant(t)];
      const hookA = await createWebhook(t, a, 'https://hooks.example.com/a', ['document.uploaded']);
      const hookB = await createWebhook(t, b, 'https://hooks.example.com/b', ['document.uploaded']);
      const pendingA = await attempt(a, hookA.id, 'pending', 1);
      const cancelledA = await attempt(a, hookA.id, 'cancelled', 2);
      const doneA = await attempt(a, hookA.id, 'success', 3);
      const pendingB = await attempt(b, hookB.id, 'pending', 4);
      const sentAt = Date.now();
      const ok: AttemptOutcome = { status: 'success', responseStatus: 200, durationMs: 12, responseExcerpt: 'ok', error: null, sentAt };
      const failed: AttemptOutcome = { status: 'failed', responseStatus: null, durationMs: 5_001, responseExcerpt: null, error: "timeout: it's 'quoted'", sentAt: sentAt + 1 };

      const written = await repo.recordOutcomes(db, [
        { tenantId: a.tenantId, id: pendingA, outcome: ok },
        { tenantId: a.tenantId, id: cancelledA, outcome: failed },
        { tenantId: a.tenantId, id: doneA, outcome: failed },
        { tenantId: b.tenantId, id: pendingB, outcome: ok },
        // Another tenant's attempt is never written, whatever id is given.
        { tenantId: b.tenantId, id: pendingA, outcome: failed },
      ]);
      assert.deepEqual([...written].sort(), [pendingA, cancelledA, pendingB].sort());

      const rows = await db.selectFrom('webhook_deliveries').selectAll().where('id', 'in', [pendingA, cancelledA, doneA, pendingB]).execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      const shape = (id: string) => {
        const r = byId.get(id)!;
        const num = (v: number | null) => (v === null ? null : Number(v));
        return [r.status, num(r.response_status), num(r.duration_ms), r.response_excerpt, r.error, num(r.sent_at)];
      };
      assert.deepEqual(shape(pendingA), ['success', 200, 12, 'ok', null, sentAt]);
      assert.deepEqual(shape(cancelledA), ['failed', null, 5_001, null, "timeout: it's 'quoted'", sentAt + 1], 'an attempt cancelled while on the wire gets its real outcome');
      assert.deepEqual(shape(doneA), ['success', null, null, null, null, null], 'an outcome already written stays');
      assert.deepEqual(shape(pendingB), ['success', 200, 12, 'ok', null, sentAt]);
      assert.equal((await repo.recordOutcomes(db, [])).size, 0);
    });
  },
);
