import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, loginAs } from '../support/fixtures.ts';

/**
 * Tenant isolation sweep over the identity endpoints: every id of tenant A, on every endpoint that
 * takes one, answers 404 to tenant B (API key and user token alike), and A's rows never appear in B's lists.
 */
describeEachDialect('security: tenant isolation (identity endpoints)', (ctx) => {
  it('never reveals or touches another tenant’s users, workspaces, members, keys or sessions', async () => {
    const a = await createTenant(ctx());
    const b = await createTenant(ctx());
    const inject = ctx().app.inject.bind(ctx().app);
    const aMember = await loginAs(ctx(), a, 'member');
    const aWs = (
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: a.headers, payload: { name: 'A secret' } })
    ).json();
    await inject({
      method: 'POST',
      url: `/api/v1/workspaces/${aWs.id}/members`,
      headers: a.headers,
      payload: { user_id: aMember.userId },
    });
    const aKey = (
      await inject({ method: 'POST', url: '/api/v1/api-keys', headers: a.headers, payload: { name: 'A key' } })
    ).json();
    const bWs = (
      await inject({ method: 'POST', url: '/api/v1/workspaces', headers: b.headers, payload: { name: 'B ws' } })
    ).json();
    const bOwner = await loginAs(ctx(), b, 'owner');

    const probes: {
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      url: string;
      payload?: Record<string, unknown>;
    }[] = [
      { method: 'GET', url: `/api/v1/users/${aMember.userId}` },
      { method: 'PATCH', url: `/api/v1/users/${aMember.userId}`, payload: { name: 'pwned' } },
      { method: 'DELETE', url: `/api/v1/users/${aMember.userId}` },
      { method: 'GET', url: `/api/v1/workspaces/${aWs.id}` },
      { method: 'PUT', url: `/api/v1/workspaces/${aWs.id}`, payload: { name: 'pwned' } },
      { method: 'POST', url: `/api/v1/workspaces/${aWs.id}/members`, payload: { user_id: bOwner.userId } },
      { method: 'DELETE', url: `/api/v1/workspaces/${aWs.id}/members/${aMember.userId}` },
      { method: 'DELETE', url: `/api/v1/workspaces/${aWs.id}` },
      // B's own workspace, with A's user as the member: the user is not B's.
      { method: 'POST', url: `/api/v1/workspaces/${bWs.id}/members`, payload: { user_id: aMember.userId } },
      { method: 'DELETE', url: `/api/v1/api-keys/${aKey.id}` },
      { method: 'POST', url: `/api/v1/api-keys/${aKey.id}/rotate`, payload: { grace_seconds: 10 } },
      { method: 'DELETE', url: `/api/v1/auth/sessions/${aMember.sessionId}` },
    ];
    for (const credentials of [b.headers, bOwner.headers]) {
      for (const probe of probes) {
        // Session endpoints act on the caller's own login session: an API key gets 403 there, whoever's id it names.
        if (probe.url.includes('/auth/sessions/') && credentials === b.headers) continue;
        const res = await inject({ ...probe, headers: credentials });
        assert.equal(res.statusCode, 404, `${probe.method} ${probe.url} → ${res.statusCode} ${res.body}`);
        assert.equal(res.json().error, 'not_found');
      }
    }
    // A is intact.
    assert.equal(
      (await inject({ method: 'GET', url: `/api/v1/users/${aMember.userId}`, headers: a.headers })).json().name,
      'member user',
    );
    const aDetail = (await inject({ method: 'GET', url: `/api/v1/workspaces/${aWs.id}`, headers: a.headers })).json();
    assert.equal(aDetail.name, 'A secret');
    assert.equal(aDetail.member_count, 1);
    assert.equal(
      (await inject({ method: 'GET', url: '/api/v1/users', headers: { 'x-api-key': aKey.key } })).statusCode,
      200,
    );
    assert.equal((await inject({ method: 'GET', url: '/api/v1/auth/me', headers: aMember.headers })).statusCode, 200);

    // B's lists hold none of A's rows.
    const aIds = new Set([a.ownerId, aMember.userId, aWs.id, aKey.id, aMember.sessionId]);
    for (const url of [
      '/api/v1/users?page_size=100',
      '/api/v1/workspaces?page_size=100',
      '/api/v1/api-keys?page_size=100',
      '/api/v1/auth/sessions',
    ]) {
      for (const credentials of url.includes('sessions') ? [bOwner.headers] : [b.headers, bOwner.headers]) {
        const res = await inject({ method: 'GET', url, headers: credentials });
        assert.equal(res.statusCode, 200, res.body);
        for (const row of res.json().data) assert.ok(!aIds.has(row.id), `${url} leaked ${row.id}`);
        assert.ok(!res.body.includes('A secret') && !res.body.includes(a.ownerEmail), `${url} leaked A's data`);
      }
    }
    // Workspace filters by a user of A find nothing in B.
    const filtered = (
      await inject({ method: 'GET', url: `/api/v1/workspaces?member_id=${aMember.userId}`, headers: b.headers })
    ).json();
    assert.equal(filtered.total, 0);
  });
});
