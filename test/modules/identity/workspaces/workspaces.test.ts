import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../../support/fixtures.ts';

describeEachDialect('workspaces', (ctx) => {
  const inject = (opts: InjectOptions) => ctx().app.inject(opts);

  it('creates, lists paged, reads, updates partially and deletes', async () => {
    const t = await createTenant(ctx());
    const created = await inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: t.headers,
      payload: { name: 'Finance', description: 'Money' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const w = created.json();
    assert.equal(w.member_count, 0);
    assertError(
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: t.headers, payload: { name: 'finance' } }),
      409,
      'conflict',
    );
    await inject({ method: 'POST', url: '/api/v1/workspaces', headers: t.headers, payload: { name: 'Legal' } });
    const list = (
      await inject({ method: 'GET', url: '/api/v1/workspaces?page_size=1&page=2', headers: t.headers })
    ).json();
    assert.equal(list.total, 2);
    assert.equal(list.data[0].name, 'Legal');
    const updated = await inject({
      method: 'PUT',
      url: `/api/v1/workspaces/${w.id}`,
      headers: t.headers,
      payload: { description: null },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal(updated.json().name, 'Finance');
    assert.equal(updated.json().description, null);
    assertError(
      await inject({ method: 'PUT', url: `/api/v1/workspaces/${w.id}`, headers: t.headers, payload: {} }),
      400,
      'validation_error',
    );
    assertError(
      await inject({
        method: 'PUT',
        url: `/api/v1/workspaces/${w.id}`,
        headers: t.headers,
        payload: { name: 'legal' },
      }),
      409,
      'conflict',
    );
    const del = await inject({ method: 'DELETE', url: `/api/v1/workspaces/${w.id}`, headers: t.headers });
    assert.deepEqual(del.json(), { message: 'Workspace deleted' });
    assertError(
      await inject({ method: 'GET', url: `/api/v1/workspaces/${w.id}`, headers: t.headers }),
      404,
      'not_found',
    );
  });

  it('adds and removes members; unknown users are 404 and duplicates 409', async () => {
    const t = await createTenant(ctx());
    const member = await loginAs(ctx(), t, 'member');
    const w = (
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: t.headers, payload: { name: 'Team' } })
    ).json();
    const add = await inject({
      method: 'POST',
      url: `/api/v1/workspaces/${w.id}/members`,
      headers: t.headers,
      payload: { user_id: member.userId },
    });
    assert.equal(add.statusCode, 201, add.body);
    assert.deepEqual(
      add.json().members.map((m: { user_id: string }) => m.user_id),
      [member.userId],
    );
    assertError(
      await inject({
        method: 'POST',
        url: `/api/v1/workspaces/${w.id}/members`,
        headers: t.headers,
        payload: { user_id: member.userId },
      }),
      409,
      'conflict',
    );
    assertError(
      await inject({
        method: 'POST',
        url: `/api/v1/workspaces/${w.id}/members`,
        headers: t.headers,
        payload: { user_id: '00000000-0000-7000-8000-000000000000' },
      }),
      404,
      'not_found',
    );
    const detail = (await inject({ method: 'GET', url: `/api/v1/workspaces/${w.id}`, headers: member.headers })).json();
    assert.equal(detail.member_count, 1);
    const mine = (
      await inject({ method: 'GET', url: `/api/v1/workspaces?member_id=${member.userId}`, headers: member.headers })
    ).json();
    assert.equal(mine.total, 1);
    const rm = await inject({
      method: 'DELETE',
      url: `/api/v1/workspaces/${w.id}/members/${member.userId}`,
      headers: t.headers,
    });
    assert.equal(rm.statusCode, 200, rm.body);
    assertError(
      await inject({
        method: 'DELETE',
        url: `/api/v1/workspaces/${w.id}/members/${member.userId}`,
        headers: t.headers,
      }),
      404,
      'not_found',
    );
  });

  it('members manage the workspaces they created, not others; viewers create none', async () => {
    const t = await createTenant(ctx());
    const m1 = await loginAs(ctx(), t, 'member', { email: 'm1@example.com' });
    const m2 = await loginAs(ctx(), t, 'member', { email: 'm2@example.com' });
    const viewer = await loginAs(ctx(), t, 'viewer');
    const w = (
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: m1.headers, payload: { name: 'Mine' } })
    ).json();
    assert.equal(w.created_by, m1.userId);
    assert.equal(
      (
        await inject({
          method: 'PUT',
          url: `/api/v1/workspaces/${w.id}`,
          headers: m1.headers,
          payload: { name: 'Mine 2' },
        })
      ).statusCode,
      200,
    );
    assertError(
      await inject({
        method: 'PUT',
        url: `/api/v1/workspaces/${w.id}`,
        headers: m2.headers,
        payload: { name: 'Theirs' },
      }),
      403,
      'forbidden',
    );
    assertError(
      await inject({
        method: 'POST',
        url: `/api/v1/workspaces/${w.id}/members`,
        headers: m2.headers,
        payload: { user_id: m2.userId },
      }),
      403,
      'forbidden',
    );
    assertError(
      await inject({ method: 'DELETE', url: `/api/v1/workspaces/${w.id}`, headers: m2.headers }),
      403,
      'forbidden',
    );
    assertError(
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: viewer.headers, payload: { name: 'V' } }),
      403,
      'forbidden',
    );
    assert.equal(
      (await inject({ method: 'GET', url: `/api/v1/workspaces/${w.id}`, headers: viewer.headers })).statusCode,
      200,
    );
    const admin = await loginAs(ctx(), t, 'admin');
    assert.equal(
      (await inject({ method: 'DELETE', url: `/api/v1/workspaces/${w.id}`, headers: admin.headers })).statusCode,
      200,
    );
  });
});
