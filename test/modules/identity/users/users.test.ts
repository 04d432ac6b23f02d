import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { tokenFromMailBody } from '../../../../src/modules/identity/auth/password-tokens.ts';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, lastMailTo, loginAs } from '../../../support/fixtures.ts';

describeEachDialect('users and roles', (ctx) => {
  const inject = (opts: InjectOptions) => ctx().app.inject(opts);

  it('invites users with built-in and custom roles and lists them paged', async () => {
    const t = await createTenant(ctx());
    const res = await inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: t.headers,
      payload: {
        email: 'fin@example.com',
        name: 'Fin',
        role: 'member',
        roles: ['finance_manager', 'Finance_Manager'],
        password: 'a long password',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const u = res.json();
    assert.deepEqual(u.roles, ['finance_manager']);
    assert.equal(u.role, 'member');
    assert.equal(u.status, 'active');
    assert.equal(res.body.includes('password'), false);
    assertError(
      await inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: t.headers,
        payload: { email: 'FIN@example.com', name: 'Dup' },
      }),
      409,
      'conflict',
    );
    assertError(
      await inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: t.headers,
        payload: { email: 'x@example.com', name: 'X', role: 'boss' },
      }),
      400,
      'validation_error',
    );
    const list = await inject({ method: 'GET', url: '/api/v1/users?page=1&page_size=1', headers: t.headers });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      {
        total: list.json().total,
        page: list.json().page,
        page_size: list.json().page_size,
        n: list.json().data.length,
      },
      {
        total: 2,
        page: 1,
        page_size: 1,
        n: 1,
      },
    );
    const got = await inject({ method: 'GET', url: `/api/v1/users/${u.id}`, headers: t.headers });
    assert.equal(got.json().email, 'fin@example.com');
    assertError(
      await inject({ method: 'GET', url: '/api/v1/users/00000000-0000-7000-8000-000000000000', headers: t.headers }),
      404,
      'not_found',
    );
  });

  it('an invitation without password goes to the outbox and lets the user set one', async () => {
    const t = await createTenant(ctx());
    const res = await inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: t.headers,
      payload: { email: 'new@example.com', name: 'New' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const mail = await lastMailTo(ctx(), t, 'new@example.com');
    assert.equal(mail?.kind, 'invitation');
    const token = tokenFromMailBody(mail!.body);
    const set = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/reset',
      payload: { token, new_password: 'my first password' },
    });
    assert.equal(set.statusCode, 200, set.body);
    const login = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: 'new@example.com', password: 'my first password' },
    });
    assert.equal(login.statusCode, 200);
  });

  it('only owners and admins manage users; members and viewers read', async () => {
    const t = await createTenant(ctx());
    const member = await loginAs(ctx(), t, 'member');
    const viewer = await loginAs(ctx(), t, 'viewer');
    for (const u of [member, viewer]) {
      assert.equal((await inject({ method: 'GET', url: '/api/v1/users', headers: u.headers })).statusCode, 200);
      assertError(
        await inject({
          method: 'POST',
          url: '/api/v1/users',
          headers: u.headers,
          payload: { email: `z${u.userId}@example.com`, name: 'Z' },
        }),
        403,
        'forbidden',
      );
      assertError(
        await inject({
          method: 'PATCH',
          url: `/api/v1/users/${t.ownerId}`,
          headers: u.headers,
          payload: { name: 'hijack' },
        }),
        403,
        'forbidden',
      );
      assertError(
        await inject({ method: 'DELETE', url: `/api/v1/users/${t.ownerId}`, headers: u.headers }),
        403,
        'forbidden',
      );
    }
    // Anyone may rename themselves, but not change their own role.
    const renamed = await inject({
      method: 'PATCH',
      url: `/api/v1/users/${member.userId}`,
      headers: member.headers,
      payload: { name: 'Me' },
    });
    assert.equal(renamed.json().name, 'Me');
    assertError(
      await inject({
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: member.headers,
        payload: { role: 'admin' },
      }),
      403,
      'forbidden',
    );
    // A viewer cannot create anything: workspaces either.
    assertError(
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: viewer.headers, payload: { name: 'v' } }),
      403,
      'forbidden',
    );
  });

  it('only an owner touches the owner role; admins manage the rest', async () => {
    const t = await createTenant(ctx());
    const admin = await loginAs(ctx(), t, 'admin');
    const owner = await loginAs(ctx(), t, 'owner');
    const member = await loginAs(ctx(), t, 'member');
    assertError(
      await inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: admin.headers,
        payload: { email: 'o2@example.com', name: 'O', role: 'owner' },
      }),
      403,
      'forbidden',
    );
    assertError(
      await inject({
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: admin.headers,
        payload: { role: 'owner' },
      }),
      403,
      'forbidden',
    );
    assertError(
      await inject({
        method: 'PATCH',
        url: `/api/v1/users/${t.ownerId}`,
        headers: admin.headers,
        payload: { role: 'member' },
      }),
      403,
      'forbidden',
    );
    const promoted = await inject({
      method: 'PATCH',
      url: `/api/v1/users/${member.userId}`,
      headers: admin.headers,
      payload: { role: 'viewer', roles: ['auditor'] },
    });
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.equal(promoted.json().role, 'viewer');
    assert.deepEqual(promoted.json().roles, ['auditor']);
    // A role change takes effect on the next request of an existing session.
    assertError(
      await inject({
        method: 'POST',
        url: '/api/v1/workspaces',
        headers: member.headers,
        payload: { name: 'after demotion' },
      }),
      403,
      'forbidden',
    );
    const made = await inject({
      method: 'PATCH',
      url: `/api/v1/users/${admin.userId}`,
      headers: owner.headers,
      payload: { role: 'owner' },
    });
    assert.equal(made.json().role, 'owner');
  });

  it('never leaves the tenant without an active owner', async () => {
    const t = await createTenant(ctx());
    const owner = await loginAs(ctx(), t, 'owner');
    assertError(
      await inject({
        method: 'PATCH',
        url: `/api/v1/users/${t.ownerId}`,
        headers: owner.headers,
        payload: { role: 'admin' },
      }),
      409,
      'conflict',
    );
    assertError(
      await inject({
        method: 'PATCH',
        url: `/api/v1/users/${t.ownerId}`,
        headers: owner.headers,
        payload: { status: 'disabled' },
      }),
      409,
      'conflict',
    );
    assertError(
      await inject({ method: 'DELETE', url: `/api/v1/users/${t.ownerId}`, headers: owner.headers }),
      409,
      'conflict',
    );
    // With a second owner, the first may step down.
    const second = await loginAs(ctx(), t, 'owner', { email: 'second-owner@example.com' });
    const down = await inject({
      method: 'PATCH',
      url: `/api/v1/users/${t.ownerId}`,
      headers: owner.headers,
      payload: { role: 'admin' },
    });
    assert.equal(down.statusCode, 200, down.body);
    assertError(
      await inject({ method: 'DELETE', url: `/api/v1/users/${second.userId}`, headers: second.headers }),
      409,
      'conflict',
    );
  });

  it('disabling or deleting a user ends their sessions', async () => {
    const t = await createTenant(ctx());
    const a = await loginAs(ctx(), t, 'member', { email: 'to-disable@example.com' });
    const b = await loginAs(ctx(), t, 'member', { email: 'to-delete@example.com' });
    const dis = await inject({
      method: 'PATCH',
      url: `/api/v1/users/${a.userId}`,
      headers: t.headers,
      payload: { status: 'disabled' },
    });
    assert.equal(dis.statusCode, 200, dis.body);
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers: a.headers }), 401, 'unauthorized');
    const del = await inject({ method: 'DELETE', url: `/api/v1/users/${b.userId}`, headers: t.headers });
    assert.equal(del.statusCode, 200, del.body);
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers: b.headers }), 401, 'unauthorized');
    assertError(
      await inject({ method: 'GET', url: `/api/v1/users/${b.userId}`, headers: t.headers }),
      404,
      'not_found',
    );
    assertError(
      await inject({ method: 'PATCH', url: `/api/v1/users/${b.userId}`, headers: t.headers, payload: {} }),
      400,
      'validation_error',
    );
  });
});
