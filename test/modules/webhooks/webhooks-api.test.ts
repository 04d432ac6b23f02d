import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EVENT_NAMES } from '../../../src/events/event-catalogue.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import { createWebhook } from './helpers.ts';

// The webhook API (spec "Endpoints > Webhooks", docs/api-decisions.md §8): every validation
// error, the secret shown once, partial updates, permissions and tenant isolation. No worker:
// nothing here is delivered (webhooks-delivery.test.ts does that).

const HOOK = 'https://hooks.example.com/docuvault';

describeEachDialect(
  'webhooks: API',
  (ctx) => {
    it('creates a webhook with a generated secret shown once, and never again', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const created = await createWebhook(t, tenant, HOOK, [
        'document.processed',
        'dag.execution.completed',
        'document.processed',
      ]);
      assert.match(created.id, /^[0-9a-f-]{36}$/);
      assert.equal(created.url, HOOK);
      assert.deepEqual(
        created.events,
        ['document.processed', 'dag.execution.completed'],
        'duplicates dropped, order kept',
      );
      assert.equal(created.status, 'active');
      assert.equal(created.status_reason, null);
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.ok(!Number.isNaN(Date.parse(created.created_at)));

      const got = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${created.id}`, headers: tenant.headers });
      assert.equal(got.statusCode, 200);
      assert.equal(got.json().secret, undefined);
      assert.ok(!got.body.includes(created.secret));
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: tenant.headers });
      assert.equal(list.statusCode, 200);
      assert.deepEqual(
        list.json().webhooks.map((w: { id: string }) => w.id),
        [created.id],
      );
      assert.equal(list.json().total, 1);
      assert.ok(!list.body.includes(created.secret));
      // Stored sealed, not as written.
      const row = await t.container.database.db
        .selectFrom('webhooks')
        .select('secret')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.secret.includes(created.secret.slice(6)));
    });

    it('keeps a given secret, and accepts every event of the spec (paused and escalated included)', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const created = await createWebhook(t, tenant, HOOK, [...EVENT_NAMES], { secret: 'my-own-secret-0123456789' });
      assert.equal(created.secret, 'my-own-secret-0123456789');
      assert.deepEqual(created.events, [...EVENT_NAMES]);
    });

    it('answers every validation error with the contract body', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const post = (payload: unknown) =>
        t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: tenant.headers, payload: payload as object });
      assertError(await post({ url: 'http://hooks.example.com/x', events: ['document.uploaded'] }), 400, 'invalid_url');
      assertError(await post({ url: 'not a url', events: ['document.uploaded'] }), 400, 'invalid_url');
      assertError(await post({ url: 'ftp://hooks.example.com/x', events: ['document.uploaded'] }), 400, 'invalid_url');
      const unknown = assertError(
        await post({ url: HOOK, events: ['document.uploaded', 'document.exploded'] }),
        400,
        'invalid_event',
      );
      assert.deepEqual(unknown.details.events, ['document.exploded']);
      assertError(await post({ url: HOOK, events: ['webhook.test'] }), 400, 'invalid_event');
      assertError(await post({ url: HOOK, events: [] }), 400, 'validation_error');
      assertError(await post({ url: HOOK }), 400, 'validation_error');
      assertError(await post({ events: ['document.uploaded'] }), 400, 'validation_error');
      assertError(await post({ url: HOOK, events: 'document.uploaded' }), 400, 'validation_error');
      assertError(await post({ url: HOOK, events: ['document.uploaded'], secret: 'short' }), 400, 'validation_error');
      assertError(await post({ url: HOOK, events: ['document.uploaded'], status: 'paused' }), 400, 'validation_error');

      const { id } = await createWebhook(t, tenant, HOOK, ['document.uploaded']);
      const put = (payload: unknown) =>
        t.app.inject({
          method: 'PUT',
          url: `/api/v1/webhooks/${id}`,
          headers: tenant.headers,
          payload: payload as object,
        });
      assertError(await put({}), 400, 'validation_error');
      assertError(await put({ status: 'disabled' }), 400, 'validation_error');
      assertError(await put({ secret: 'another-secret-0123456789' }), 400, 'validation_error');
      assertError(await put({ url: 'http://hooks.example.com/y' }), 400, 'invalid_url');
      assertError(await put({ events: ['nope'] }), 400, 'invalid_event');
      const get = (query: string) =>
        t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}/deliveries${query}`, headers: tenant.headers });
      assertError(await get('?status=bogus'), 400, 'validation_error');
      assertError(await get('?event=document.exploded'), 400, 'invalid_event');
      assertError(await get('?page_size=101'), 400, 'validation_error');
      assert.equal((await get('?event=webhook.test&status=failed')).statusCode, 200);
      // Nothing was changed by the refused updates.
      const after = (
        await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: tenant.headers })
      ).json();
      assert.equal(after.url, HOOK);
      assert.deepEqual(after.events, ['document.uploaded']);
    });

    it('updates partially, pauses and resumes, and deletes with {message}', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { id } = await createWebhook(t, tenant, HOOK, ['document.uploaded']);
      const put = (payload: object) =>
        t.app.inject({ method: 'PUT', url: `/api/v1/webhooks/${id}`, headers: tenant.headers, payload });
      const paused = await put({ status: 'paused' });
      assert.equal(paused.statusCode, 200, paused.body);
      assert.equal(paused.json().status, 'paused');
      assert.deepEqual(paused.json().events, ['document.uploaded']);
      assert.equal(paused.json().secret, undefined);
      const changed = (
        await put({ url: 'https://hooks.example.com/v2', events: ['document.failed', 'chat.message.created'] })
      ).json();
      assert.equal(changed.url, 'https://hooks.example.com/v2');
      assert.deepEqual(changed.events, ['document.failed', 'chat.message.created']);
      assert.equal(changed.status, 'paused', 'status untouched when not given');
      assert.equal((await put({ status: 'active' })).json().status, 'active');

      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: tenant.headers });
      assert.equal(deleted.statusCode, 200);
      assert.equal(typeof deleted.json().message, 'string');
      assertError(
        await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: tenant.headers }),
        404,
        'not_found',
      );
      assertError(
        await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: tenant.headers }),
        404,
        'not_found',
      );
    });

    it('sets a new secret (shown once); a webhook without one (imported) is not resumed until one is set', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const { id } = await createWebhook(t, tenant, HOOK, ['document.uploaded']);
      const rotate = (payload: object, headers = tenant.headers) =>
        t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/secret`, headers, payload });
      const put = (payload: object) =>
        t.app.inject({ method: 'PUT', url: `/api/v1/webhooks/${id}`, headers: tenant.headers, payload });
      const sealed = async () =>
        (
          await t.container.database.db
            .selectFrom('webhooks')
            .select('secret')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).secret;
      const first = await sealed();
      const given = await rotate({ secret: 'whsec_a-new-secret-of-some-length' });
      assert.equal(given.statusCode, 200, given.body);
      assert.equal(given.json().secret, 'whsec_a-new-secret-of-some-length');
      const second = await sealed();
      assert.notEqual(second, first);
      assert.ok(!second.includes('a-new-secret'), 'stored sealed, not in clear');
      const generated = (await rotate({})).json();
      assert.match(generated.secret, /^whsec_/);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: tenant.headers })).json().secret,
        undefined,
      );
      assertError(await rotate({ secret: 'short' }), 400, 'validation_error');
      assertError(await rotate({ nope: 1 }), 400, 'validation_error');
      assertError(await rotate({}, other.headers), 404, 'not_found');
      const member = await loginAs(t, tenant, 'member');
      assertError(await rotate({}, member.headers), 403, 'forbidden');
      // As a tenant import leaves it: paused, no secret.
      await t.container.database.db
        .updateTable('webhooks')
        .set({ secret: '', status: 'paused' })
        .where('id', '=', id)
        .execute();
      assertError(await put({ status: 'active' }), 400, 'validation_error');
      assert.equal((await rotate({})).statusCode, 200);
      const resumed = await put({ status: 'active' });
      assert.equal(resumed.statusCode, 200, resumed.body);
      assert.equal(resumed.json().status, 'active');
    });

    it('answers webhooks and attempts byte for byte: fields in order, ISO dates, nulls kept, no secret', async () => {
      const t = ctx();
      const db = t.container.database.db;
      const tenant = await createTenant(t);
      const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
      // Written here from the stored row, independently of the presenter.
      const webhookJson = async (id: string) => {
        const w = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        return {
          id: w.id,
          url: w.url,
          events: JSON.parse(w.events),
          status: w.status,
          status_reason: w.status_reason,
          created_at: iso(w.created_at),
          updated_at: iso(w.updated_at),
        };
      };
      const deliveryJson = async (id: string) => {
        const d = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        return {
          id: d.id,
          event_id: d.event_id,
          event: d.event,
          status: d.status,
          response_status: d.response_status,
          duration_ms: d.duration_ms,
          attempt: d.attempt,
          next_retry_at: iso(d.next_retry_at),
          created_at: iso(d.created_at),
          trigger: d.trigger,
          scheduled_at: iso(d.scheduled_at),
          sent_at: iso(d.sent_at),
          error: d.error,
          response_excerpt: d.response_excerpt,
        };
      };

      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: tenant.headers,
        payload: { url: HOOK, events: ['document.uploaded', 'document.failed'], secret: 'my-own-secret-0123456789' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id;
      assert.equal(created.body, JSON.stringify({ ...(await webhookJson(id)), secret: 'my-own-secret-0123456789' }));
      const got = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: tenant.headers });
      assert.equal(got.body, JSON.stringify(await webhookJson(id)));
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: tenant.headers });
      assert.equal(list.body, JSON.stringify({ webhooks: [await webhookJson(id)], total: 1, page: 1, page_size: 20 }));
      // A disabled webhook shows why.
      await db
        .updateTable('webhooks')
        .set({ status: 'disabled', status_reason: 'Disabled by the service: "it failed"' })
        .where('id', '=', id)
        .execute();
      const disabled = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: tenant.headers });
      assert.equal(disabled.body, JSON.stringify(await webhookJson(id)));
      const updated = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/webhooks/${id}`,
        headers: tenant.headers,
        payload: { status: 'paused', events: ['chat.session.created'] },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(updated.body, JSON.stringify(await webhookJson(id)));
      assert.deepEqual(updated.json().events, ['chat.session.created']);

      const ping = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: tenant.headers });
      assert.equal(ping.statusCode, 202, ping.body);
      const pingId = ping.json().id;
      assert.equal(ping.body, JSON.stringify(await deliveryJson(pingId)));
      // An attempt with every outcome field set, as the worker writes them.
      const now = Date.now();
      await db
        .updateTable('webhook_deliveries')
        .set({
          status: 'failed',
          response_status: 500,
          duration_ms: 42,
          response_excerpt: 'oops "quoted"…',
          error: 'HTTP 500',
          sent_at: now,
          next_retry_at: now + 1_000,
        })
        .where('id', '=', pingId)
        .execute();
      const redelivered = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${id}/deliveries/${pingId}/redeliver`,
        headers: tenant.headers,
      });
      assert.equal(redelivered.statusCode, 202, redelivered.body);
      const againId = redelivered.json().id;
      assert.equal(redelivered.body, JSON.stringify(await deliveryJson(againId)));
      assert.deepEqual([redelivered.json().attempt, redelivered.json().trigger], [2, 'redeliver']);
      const log = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${id}/deliveries`,
        headers: tenant.headers,
      });
      assert.equal(
        log.body,
        JSON.stringify({
          data: [await deliveryJson(againId), await deliveryJson(pingId)],
          total: 2,
          page: 1,
          page_size: 20,
        }),
      );
    });

    it('pages the list', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await createWebhook(t, tenant, `${HOOK}/${i}`, ['document.uploaded'])).id);
      const page2 = await t.app.inject({
        method: 'GET',
        url: '/api/v1/webhooks?page=2&page_size=2',
        headers: tenant.headers,
      });
      assert.equal(page2.statusCode, 200);
      assert.deepEqual(page2.json(), { ...page2.json(), total: 3, page: 2, page_size: 2 });
      assert.deepEqual(
        page2.json().webhooks.map((w: { id: string }) => w.id),
        [ids[2]],
      );
    });

    it('lets owners, admins and API keys manage webhooks; members and viewers get 403', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { id } = await createWebhook(t, tenant, HOOK, ['document.uploaded']);
      const owner = await loginAs(t, tenant, 'owner');
      const admin = await loginAs(t, tenant, 'admin');
      for (const user of [owner, admin]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: user.headers,
          payload: { url: HOOK, events: ['document.uploaded'] },
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      for (const role of ['member', 'viewer'] as const) {
        const user = await loginAs(t, tenant, role);
        assertError(
          await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: user.headers }),
          403,
          'forbidden',
        );
        assertError(
          await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}`, headers: user.headers }),
          403,
          'forbidden',
        );
        assertError(
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/webhooks',
            headers: user.headers,
            payload: { url: HOOK, events: ['document.uploaded'] },
          }),
          403,
          'forbidden',
        );
        assertError(
          await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: user.headers }),
          403,
          'forbidden',
        );
      }
    });

    it('never shows or touches another tenant’s webhooks or deliveries', async () => {
      const t = ctx();
      const a = await createTenant(t);
      const b = await createTenant(t);
      const aHook = await createWebhook(t, a, HOOK, ['document.uploaded']);
      const bHook = await createWebhook(t, b, HOOK, ['document.uploaded']);
      const ping = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${aHook.id}/test`, headers: a.headers });
      assert.equal(ping.statusCode, 202, ping.body);
      const aDelivery = ping.json().id;
      const bOwner = await loginAs(t, b, 'owner');
      const probes = [
        { method: 'GET', url: `/api/v1/webhooks/${aHook.id}` },
        { method: 'PUT', url: `/api/v1/webhooks/${aHook.id}`, payload: { status: 'paused' } },
        { method: 'DELETE', url: `/api/v1/webhooks/${aHook.id}` },
        { method: 'GET', url: `/api/v1/webhooks/${aHook.id}/deliveries` },
        { method: 'POST', url: `/api/v1/webhooks/${aHook.id}/test` },
        { method: 'POST', url: `/api/v1/webhooks/${aHook.id}/deliveries/${aDelivery}/redeliver` },
        // B's own webhook with A's delivery id.
        { method: 'POST', url: `/api/v1/webhooks/${bHook.id}/deliveries/${aDelivery}/redeliver` },
      ] as const;
      for (const headers of [b.headers, bOwner.headers]) {
        for (const probe of probes) {
          const res = await t.app.inject({ ...probe, headers });
          assert.equal(res.statusCode, 404, `${probe.method} ${probe.url} → ${res.statusCode} ${res.body}`);
          assert.equal(res.json().error, 'not_found');
        }
        const list = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks?page_size=100', headers });
        assert.deepEqual(
          list.json().webhooks.map((w: { id: string }) => w.id),
          [bHook.id],
        );
      }
      // A is intact.
      const mine = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${aHook.id}`, headers: a.headers });
      assert.equal(mine.json().status, 'active');
      const aDeliveries = await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${aHook.id}/deliveries`,
        headers: a.headers,
      });
      assert.deepEqual(
        aDeliveries.json().data.map((d: { id: string }) => d.id),
        [aDelivery],
      );
    });

    it('the sandbox clean-up removes the twin’s webhooks and deliveries, not the live tenant’s', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const live = await createWebhook(t, tenant, HOOK, ['document.uploaded']);
      const sandboxHeaders = { 'x-api-key': tenant.testApiKey };
      const res = await t.app.inject({
        method: 'POST',
        url: '/sandbox/api/v1/webhooks',
        headers: sandboxHeaders,
        payload: { url: HOOK, events: ['document.uploaded'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      const twin = res.json().id;
      assert.equal(
        (await t.app.inject({ method: 'POST', url: `/sandbox/api/v1/webhooks/${twin}/test`, headers: sandboxHeaders }))
          .statusCode,
        202,
      );
      const twinRow = await t.container.database.db
        .selectFrom('webhooks')
        .select('tenant_id')
        .where('id', '=', twin)
        .executeTakeFirstOrThrow();
      // What the 7-day reset runs for a twin: every module's clean-up, in one transaction.
      await t.container.database.db.transaction().execute(async (trx) => {
        for (const cleanup of t.container.modules.sandboxCleanups) await cleanup(trx, twinRow.tenant_id);
      });
      const left = await t.container.database.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', twinRow.tenant_id)
        .execute();
      assert.equal(left.length, 0);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/sandbox/api/v1/webhooks', headers: sandboxHeaders })).json().total,
        0,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${live.id}`, headers: tenant.headers })).statusCode,
        200,
      );
    });
  },
  { env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);

describeEachDialect('webhooks: private targets refused by default', (ctx) => {
  it('refuses loopback, private, link-local, metadata and odd spellings with 400 INVALID_URL', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://2130706433/hook',
      'https://0x7f.0.0.1/hook',
      'https://100.64.0.1/hook',
      'https://metadata.google.internal/hook',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: tenant.headers,
        payload: { url, events: ['document.uploaded'] },
      });
      const refused = assertError(res, 400, 'invalid_url');
      // The refusal names the setting that allows it, for someone trying webhooks on their own machine.
      assert.match(refused.message, /private or reserved address.*ALLOW_PRIVATE_NETWORK_TARGETS=true/, url);
    }
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: tenant.headers,
      payload: { url: 'https://93.184.215.14/hook', events: ['document.uploaded'] },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/webhooks/${ok.json().id}`,
      headers: tenant.headers,
      payload: { url: 'https://127.0.0.1/x' },
    });
    assertError(put, 400, 'invalid_url');
  });
});
