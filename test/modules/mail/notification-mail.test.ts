import assert from 'node:assert/strict';
import { it } from 'node:test';
import { billingPeriod } from '../../../src/modules/credits/credits.service.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, lastMailTo, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { testSeam } from '../../support/test-seams.ts';

// Who gets which mail: tier changes and AI-credit thresholds go to owners and admins; users turn
// notification mail off in their profile (security mail still comes); an e-mail change is told
// to both addresses. No worker: the outbox rows are what is checked.

async function mailsTo(t: TestApp, tenant: TestTenant, to: string) {
  return testSeam(t.container, 'mailOutbox').listTo(t.container.database.db, tenant.tenantId, to);
}

describeEachDialect('notification mail', (ctx) => {
  it('users turn notification mail off for themselves; security mail still comes', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'starter', name: 'Optout Ltd' });
    const admin = await loginAs(t, tenant, 'admin');
    const member = await loginAs(t, tenant, 'member');
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${admin.userId}`,
        headers: member.headers,
        payload: { notification_mail: false },
      }),
      403,
      'forbidden',
    );
    const off = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${admin.userId}`,
      headers: admin.headers,
      payload: { notification_mail: false },
    });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().notification_mail, false);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/v1/users/${member.userId}`, headers: member.headers })).json()
        .notification_mail,
      true,
    );

    const changed = await t.admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${tenant.tenantId}`,
      payload: { tier: 'pro' },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const [toOwner] = await mailsTo(t, tenant, tenant.ownerEmail);
    assert.deepEqual(
      [toOwner?.kind, toOwner?.status, toOwner?.subject],
      ['subscription_changed', 'pending', 'Optout Ltd: plan changed from Starter to Pro'],
    );
    assert.match(
      toOwner!.body,
      /Notification mail can be turned off in your profile: http:\/\/127\.0\.0\.1:8080\/console\/#\/profile/,
    );
    const [toAdmin] = await mailsTo(t, tenant, admin.email);
    assert.deepEqual(
      [toAdmin?.kind, toAdmin?.status, toAdmin?.body],
      ['subscription_changed', 'suppressed', ''],
      'not sent, and nothing kept of it',
    );
    assert.equal((await mailsTo(t, tenant, member.email)).length, 0, 'members do not hear of plans');

    await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/forgot',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: admin.email },
    });
    const reset = await lastMailTo(t, tenant, admin.email);
    assert.deepEqual([reset?.kind, reset?.category, reset?.status], ['password_reset', 'security', 'pending']);
  });

  it('AI credits: 80 % and 100 % of the month are each told once to owners and admins', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'free', name: 'Thrifty' });
    const live = (await t.container.modules.use('tenantDirectory').findById(tenant.tenantId))!;
    const credits = t.container.modules.use('credits');
    const db = t.container.database.db;
    // 79.5 of the Free tier's 100 credits already used this month.
    await db
      .insertInto('ai_credit_charges')
      .values({
        id: 'crd_seed',
        tenant_id: tenant.tenantId,
        period: billingPeriod(Date.now()),
        millicredits: 79_500,
        reason: 'chat_ask',
        reference: null,
        created_at: Date.now(),
      })
      .execute();
    const charge = () => db.transaction().execute((trx) => credits.charge(trx, live, 'semantic_search'));
    await charge();
    const usage = async () => (await mailsTo(t, tenant, tenant.ownerEmail)).filter((m) => m.kind === 'usage_threshold');
    assert.deepEqual(
      (await usage()).map((m) => m.subject),
      [`Thrifty has used 80 % of its AI credits for ${billingPeriod(Date.now())}`],
    );
    await charge();
    assert.equal((await usage()).length, 1, 'crossing 80 % is told once');
    await db.updateTable('ai_credit_charges').set({ millicredits: 98_000 }).where('id', '=', 'crd_seed').execute();
    await charge();
    assert.equal((await usage()).length, 1, '99.5 of 100: half a credit is still left');
    await charge();
    const told = await usage();
    assert.equal(told.length, 2);
    assert.match(told[0]!.subject, /has used all its AI credits/);
    assert.match(told[0]!.body, /answer 402 until the month ends/);
  });

  it('an e-mail change is told to both addresses; a user still invited gets a new invitation at the new one', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const member = await loginAs(t, tenant, 'member');
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: member.headers,
        payload: { email: 'me@example.com' },
      }),
      403,
      'forbidden',
    );
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: tenant.headers,
        payload: { email: tenant.ownerEmail },
      }),
      409,
      'conflict',
    );
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: tenant.headers,
        payload: { email: 'not-an-address' },
      }),
      400,
      'validation_error',
    );

    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${member.userId}`,
      headers: tenant.headers,
      payload: { email: 'moved@example.com' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().email, 'moved@example.com');
    const [old] = await mailsTo(t, tenant, member.email);
    const [fresh] = await mailsTo(t, tenant, 'moved@example.com');
    assert.deepEqual([old?.kind, old?.category, fresh?.kind], ['email_changed', 'security', 'email_changed']);
    assert.match(old!.body, new RegExp(`changed from ${member.email} to moved@example.com`));
    assert.match(fresh!.body, /This address is now the sign-in e-mail/);

    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'typo@exmaple.com', name: 'Typo' },
    });
    const fixed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${invited.json().id}`,
      headers: tenant.headers,
      payload: { email: 'typo@example.com' },
    });
    assert.equal(fixed.statusCode, 200, fixed.body);
    assert.equal(fixed.json().invitation.status, 'pending', 'the new invitation is the one shown');
    assert.deepEqual((await mailsTo(t, tenant, 'typo@example.com')).map((m) => m.kind).sort(), [
      'email_changed',
      'invitation',
    ]);
  });

  it('task mail: assigned and, at escalation, due soon or escalated (workflows)', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { name: 'Flowco' });
    const mail = t.container.modules.use('mail');
    const data = {
      taskId: 'tsk_1',
      title: 'Approve <invoice> 7',
      description: 'Check the amount',
      owner: 'Workflow "Invoices"',
      dueAt: Date.UTC(2026, 11, 1, 9, 30),
    };
    for (const kind of ['task_assigned', 'task_escalated', 'task_expiring'] as const) {
      await t.container.database.db
        .transaction()
        .execute((trx) =>
          mail.enqueue(trx, { tenantId: tenant.tenantId, kind, to: 'worker@example.com', data, at: Date.now() }),
        );
    }
    const rows = (await mailsTo(t, tenant, 'worker@example.com')).reverse();
    assert.deepEqual(
      rows.map((r) => r.subject),
      ['New task: Approve <invoice> 7', 'Task escalated: Approve <invoice> 7', 'Task due soon: Approve <invoice> 7'],
    );
    for (const r of rows) {
      assert.match(r.body, /Due: 2026-12-01 09:30 UTC/);
      assert.match(r.body, /http:\/\/127\.0\.0\.1:8080\/console\/#\/tasks/);
      assert.match(r.html ?? '', /Approve &#60;invoice&#62; 7/, 'escaped in HTML');
      assert.doesNotMatch(r.html ?? '', /<invoice>/);
    }
  });
});
