import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, lastMailTo, loginAs } from '../../support/fixtures.ts';

// The administrator's view of the outbox (GET /admin/mail, POST /admin/mail/{id}/retry) and a
// tenant's sender name (GET/PATCH /mail/settings). No worker: mail stays where it was written.

describeEachDialect('mail administration', (ctx) => {
  it('lists what waits, newest first, filtered by status, tenant and kind, without bodies', async () => {
    const t = ctx();
    const a = await createTenant(t);
    const b = await createTenant(t);
    for (const [tenant, email] of [
      [a, 'one@example.com'],
      [b, 'two@example.com'],
    ] as const) {
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/users',
            headers: tenant.headers,
            payload: { email, name: 'X' },
          })
        ).statusCode,
        201,
      );
    }
    const page = await t.admin({
      method: 'GET',
      url: `/api/v1/admin/mail?tenant_id=${a.tenantId}&status=pending&kind=invitation`,
    });
    assert.equal(page.statusCode, 200, page.body);
    const body = page.json();
    assert.equal(body.total, 1);
    assert.deepEqual([body.page, body.page_size], [1, 20]);
    const [mail] = body.data;
    assert.deepEqual(
      {
        to: mail.to,
        kind: mail.kind,
        category: mail.category,
        status: mail.status,
        attempts: mail.attempts,
        tenant_id: mail.tenant_id,
        sent_at: mail.sent_at,
      },
      {
        to: 'one@example.com',
        kind: 'invitation',
        category: 'security',
        status: 'pending',
        attempts: 0,
        tenant_id: a.tenantId,
        sent_at: null,
      },
    );
    assert.ok(!('body' in mail) && !('html' in mail), 'no body fields');
    assert.doesNotMatch(page.body, /prt_/, 'no token anywhere in the answer');
    const all = (await t.admin({ method: 'GET', url: '/api/v1/admin/mail?page_size=100' })).json();
    assert.ok(all.data.some((m: { to: string }) => m.to === 'two@example.com'));
    assert.equal(
      (await t.admin({ method: 'GET', url: '/api/v1/admin/mail?status=sent&tenant_id=' + a.tenantId })).json().total,
      0,
    );
    assertError(await t.admin({ method: 'GET', url: '/api/v1/admin/mail?status=lost' }), 400, 'validation_error');
    assertError(await t.admin({ method: 'GET', url: '/api/v1/admin/mail?kind=spam' }), 400, 'validation_error');
  });

  it('is for the administrator key only', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const owner = await loginAs(t, tenant, 'owner');
    assertError(await t.app.inject({ method: 'GET', url: '/api/v1/admin/mail' }), 401, 'unauthorized');
    for (const headers of [tenant.headers, owner.headers]) {
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/admin/mail', headers })).statusCode, 401);
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/v1/admin/mail/x/retry', headers })).statusCode,
        401,
      );
    }
  });

  it('retry: 404 for an unknown mail, 409 unless it failed or died', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'waiting@example.com', name: 'W' },
    });
    const mail = await lastMailTo(t, tenant, 'waiting@example.com');
    assertError(
      await t.admin({ method: 'POST', url: '/api/v1/admin/mail/00000000-0000-7000-8000-000000000000/retry' }),
      404,
      'not_found',
    );
    const conflict = assertError(
      await t.admin({ method: 'POST', url: `/api/v1/admin/mail/${mail!.id}/retry` }),
      409,
      'conflict',
    );
    assert.equal(conflict.details.status, 'pending');
  });

  it('an invalid recipient is kept as failed without failing what wrote it', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const { status } = await t.container.database.db.transaction().execute((trx) =>
      t.container.modules.use('mail').enqueue(trx, {
        tenantId: tenant.tenantId,
        kind: 'workflow_notification',
        to: 'not an address',
        data: { subject: 's', message: 'm' },
        at: Date.now(),
      }),
    );
    assert.equal(status, 'failed');
    const [row] = (
      await t.admin({ method: 'GET', url: `/api/v1/admin/mail?tenant_id=${tenant.tenantId}&status=failed` })
    ).json().data;
    assert.match(row.last_error, /not one e-mail address/);
  });

  it('the sender name: tenant name by default, set by owners and admins, shown in From, back to default with null', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { name: 'Northwind' });
    const other = await createTenant(t);
    const member = await loginAs(t, tenant, 'member');
    const admin = await loginAs(t, tenant, 'admin');
    const read = () => t.app.inject({ method: 'GET', url: '/api/v1/mail/settings', headers: tenant.headers });
    assert.deepEqual((await read()).json(), { sender_name: null });
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/mail/settings',
        headers: member.headers,
        payload: { sender_name: 'Mine' },
      }),
      403,
      'forbidden',
    );
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/mail/settings',
        headers: admin.headers,
        payload: { sender_name: '   ' },
      }),
      400,
      'validation_error',
    );
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/mail/settings',
        headers: admin.headers,
        payload: { sender_name: 'x'.repeat(65) },
      }),
      400,
      'validation_error',
    );
    assertError(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/mail/settings',
        headers: admin.headers,
        payload: { sender: 'x' },
      }),
      400,
      'validation_error',
    );
    const set = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/mail/settings',
      headers: admin.headers,
      payload: { sender_name: 'Northwind Docs' },
    });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual((await read()).json(), { sender_name: 'Northwind Docs' });
    assert.deepEqual(
      (await t.app.inject({ method: 'GET', url: '/api/v1/mail/settings', headers: other.headers })).json(),
      { sender_name: null },
      'per tenant',
    );

    await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/forgot',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: tenant.ownerEmail },
    });
    assert.equal((await lastMailTo(t, tenant, tenant.ownerEmail))?.fromName, 'Northwind Docs');
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/mail/settings',
      headers: tenant.headers,
      payload: { sender_name: null },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/forgot',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: tenant.ownerEmail },
    });
    assert.equal((await lastMailTo(t, tenant, tenant.ownerEmail))?.fromName, 'Northwind');
  });
});
