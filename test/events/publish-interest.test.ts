import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PUBLISH_EVENT_JOB } from '../../src/events/event-log.ts';
import { createWebhook } from '../modules/webhooks/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant } from '../support/fixtures.ts';

const HOOK = 'https://hooks.example.com/publish-interest';

const STARTED = {
  execution_id: 'exe_1',
  workflow_id: 'wf_1',
  workflow_name: 'W',
  status: 'running',
  trigger_type: 'api',
} as const;

/*
 * An event gets a publish job only when a subscriber may act on it (EventLog.record): the
 * workflow triggers, imports and processing take document events by name; webhooks take any
 * event, but only in a tenant with an active webhook. The event row itself is always written.
 */
describeEachDialect('events: a publish job only for an event a subscriber may act on', (ctx) => {
  /** Records `dag.execution.started` in the tenant; whether it got a publish job. */
  async function published(tenantId: string, name: 'dag.execution.started' | 'document.updated'): Promise<boolean> {
    const { database, events } = ctx().container;
    const data =
      name === 'document.updated'
        ? { document_id: 'doc_1', filename: 'a.txt', folder_id: null, fields: ['tags'] }
        : STARTED;
    const recorded = await database.db
      .transaction()
      .execute((trx) => events.record(trx, { tenantId, name, data } as Parameters<typeof events.record>[1]));
    const stored = await database.db.selectFrom('events').select('id').where('id', '=', recorded.id).executeTakeFirst();
    assert.ok(stored, 'the event row is written either way');
    const jobs = await database.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', PUBLISH_EVENT_JOB)
      .where('tenant_id', '=', tenantId)
      .execute();
    return jobs.some((j) => JSON.parse(j.payload).eventId === recorded.id);
  }

  it('no job for an event only webhooks take, in a tenant without an active webhook', async () => {
    const tenant = await createTenant(ctx());
    assert.equal(await published(tenant.tenantId, 'dag.execution.started'), false);
  });

  it('a job once the tenant has an active webhook (whatever events it names), none while it is paused', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const hook = await createWebhook(t, tenant, HOOK, ['document.uploaded']);
    assert.equal(await published(tenant.tenantId, 'dag.execution.started'), true);
    const paused = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/webhooks/${hook.id}`,
      headers: tenant.headers,
      payload: { status: 'paused' },
    });
    assert.equal(paused.statusCode, 200, paused.body);
    assert.equal(await published(tenant.tenantId, 'dag.execution.started'), false);
  });

  it('another tenant’s webhook does not make this tenant’s events publish', async () => {
    const t = ctx();
    const other = await createTenant(t);
    await createWebhook(t, other, HOOK, ['dag.execution.started']);
    const tenant = await createTenant(t);
    assert.equal(await published(tenant.tenantId, 'dag.execution.started'), false);
  });

  it('a job for an event a subscriber takes by name, without any webhook', async () => {
    const tenant = await createTenant(ctx());
    assert.equal(await published(tenant.tenantId, 'document.updated'), true);
  });
});
