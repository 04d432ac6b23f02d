import assert from 'node:assert/strict';
import { it } from 'node:test';
import { recordEvent } from '../../../src/events/record-event.ts';
import {
  type AttemptOutcome,
  DeliveriesRepository,
  type Delivery,
  pendingDelivery,
} from '../../../src/modules/webhooks/deliveries.repository.ts';
import type { DeliveryStatus } from '../../../src/modules/webhooks/webhooks.tables.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { createWebhook } from './helpers.ts';

// The batched outcome write (one statement for the attempts of many jobs and tenants) on both dialects.

const repo = new DeliveriesRepository();

describeEachDialect('webhooks: deliveries repository', (ctx) => {
  async function attempt(
    tenant: TestTenant,
    webhookId: string,
    status: DeliveryStatus,
    n: number,
    extra: Partial<Delivery> = {},
  ): Promise<string> {
    const now = Date.now();
    const delivery = {
      ...pendingDelivery(
        {
          tenantId: tenant.tenantId,
          webhookId,
          eventId: `evt_${n}_${Math.random().toString(36).slice(2)}`,
          event: 'document.uploaded',
          eventAt: now,
          payload: null,
          attempt: 1,
          trigger: 'event',
          retryIndex: 0,
        },
        now,
      ),
      status,
      ...extra,
    };
    await repo.insert(ctx().container.database.db, delivery);
    return delivery.id;
  }

  it('reads attempts back as they were written, with their webhook and the data to send', async () => {
    const t = ctx();
    const db = t.container.database.db;
    const tenant = await createTenant(t);
    const hook = await createWebhook(t, tenant, 'https://hooks.example.com/a', ['document.uploaded']);
    const payload = { webhook_id: hook.id, message: 'ping "quoted"', nested: { n: 1.5, list: [null, true] } };
    const ping = await attempt(tenant, hook.id, 'pending', 1, {
      event: 'webhook.test',
      trigger: 'test',
      retryIndex: null,
      payload,
    });
    // Recorded without its publish job: nothing is fanned out or sent.
    const uploaded = {
      document_id: 'd1',
      filename: 'a.txt',
      folder_id: null,
      file_type: 'text/plain',
      file_size: 1,
      status: 'pending',
      ai_status: 'pending',
    };
    const event = await recordEvent(db, { tenantId: tenant.tenantId, name: 'document.uploaded', data: uploaded });
    const fromEvent = await attempt(tenant, hook.id, 'pending', 2, { eventId: event.id, eventAt: event.createdAt });
    const orphan = await attempt(tenant, hook.id, 'pending', 3);

    const read = await repo.findById(db, tenant.tenantId, hook.id, ping);
    assert.deepEqual(read?.payload, payload);
    assert.deepEqual([read?.trigger, read?.retryIndex, read?.responseStatus, read?.sentAt], ['test', null, null, null]);
    assert.equal(await repo.findById(db, tenant.tenantId, 'another-webhook', ping), null);

    const found = await repo.findForSend(db, tenant.tenantId, [ping, fromEvent, orphan, 'missing']);
    const byId = new Map(found.map((f) => [f.delivery.id, f]));
    assert.equal(found.length, 3, 'missing ids are left out');
    assert.deepEqual(byId.get(ping)?.data, payload, 'a test ping carries its own data');
    assert.deepEqual(byId.get(fromEvent)?.data, uploaded, 'others carry their event’s');
    assert.equal(byId.get(orphan)?.data, null, 'the event is gone');
    assert.deepEqual(byId.get(ping)?.webhook, {
      url: 'https://hooks.example.com/a',
      secret: byId.get(ping)?.webhook.secret,
      status: 'active',
      consecutiveFailures: 0,
      failingSince: null,
      circuitOpenUntil: null,
    });
    assert.deepEqual(
      await repo.findForSend(db, 'another-tenant', [ping]),
      [],
      'another tenant’s attempts are never read',
    );
  });

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
    const ok: AttemptOutcome = {
      status: 'success',
      responseStatus: 200,
      durationMs: 12,
      responseExcerpt: 'ok',
      error: null,
      sentAt,
    };
    const failed: AttemptOutcome = {
      status: 'failed',
      responseStatus: null,
      durationMs: 5_001,
      responseExcerpt: null,
      error: "timeout: it's 'quoted'",
      sentAt: sentAt + 1,
    };

    const written = await repo.recordOutcomes(db, [
      { tenantId: a.tenantId, id: pendingA, outcome: ok },
      { tenantId: a.tenantId, id: cancelledA, outcome: failed },
      { tenantId: a.tenantId, id: doneA, outcome: failed },
      { tenantId: b.tenantId, id: pendingB, outcome: ok },
      // Another tenant's attempt is never written, whatever id is given.
      { tenantId: b.tenantId, id: pendingA, outcome: failed },
    ]);
    assert.deepEqual([...written].sort(), [pendingA, cancelledA, pendingB].sort());

    const rows = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', 'in', [pendingA, cancelledA, doneA, pendingB])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const shape = (id: string) => {
      const r = byId.get(id)!;
      const num = (v: number | null) => (v === null ? null : Number(v));
      return [r.status, num(r.response_status), num(r.duration_ms), r.response_excerpt, r.error, num(r.sent_at)];
    };
    assert.deepEqual(shape(pendingA), ['success', 200, 12, 'ok', null, sentAt]);
    assert.deepEqual(
      shape(cancelledA),
      ['failed', null, 5_001, null, "timeout: it's 'quoted'", sentAt + 1],
      'an attempt cancelled while on the wire gets its real outcome',
    );
    assert.deepEqual(shape(doneA), ['success', null, null, null, null, null], 'an outcome already written stays');
    assert.deepEqual(shape(pendingB), ['success', 200, 12, 'ok', null, sentAt]);
    assert.equal((await repo.recordOutcomes(db, [])).size, 0);
  });
});
