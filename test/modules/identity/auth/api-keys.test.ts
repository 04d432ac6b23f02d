import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../../support/fixtures.ts';

describeEachDialect('API keys', (ctx) => {
  const inject = (opts: InjectOptions) => ctx().app.inject(opts);
  const usersWith = (key: string, sandbox = false) =>
    inject({ method: 'GET', url: `${sandbox ? '/sandbox' : ''}/api/v1/users`, headers: { 'x-api-key': key } });

  it('creates a key shown once, lists keys without secrets, and tracks last_used_at', async () => {
    const t = await createTenant(ctx());
    const created = await inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: t.headers,
      payload: { name: 'CI' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const k = created.json();
    assert.match(k.key, /^ak_live_[\w-]{43}$/);
    assert.equal(k.environment, 'live');
    assert.equal(k.last_used_at, null);
    assert.ok(k.key.startsWith(k.prefix));
    assert.equal((await usersWith(k.key)).statusCode, 200);
    const list = await inject({ method: 'GET', url: '/api/v1/api-keys', headers: t.headers });
    assert.equal(list.statusCode, 200);
    const body = list.json();
    assert.equal(body.total, 3, 'default live, default test, CI');
    assert.ok(!list.body.includes(k.key), 'the secret never appears again');
    for (const row of body.data)
      assert.deepEqual(Object.keys(row).sort(), ['created_at', 'environment', 'id', 'last_used_at', 'name', 'prefix']);
    const ci = body.data.find((r: { id: string }) => r.id === k.id);
    assert.ok(ci.last_used_at, 'last_used_at set after use');
    const stored = await ctx()
      .container.database.db.selectFrom('api_keys')
      .select('key_hash')
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(stored.key_hash, k.key);
  });

  it('revokes a key with effect on the very next request', async () => {
    const t = await createTenant(ctx());
    const k = (
      await inject({ method: 'POST', url: '/api/v1/api-keys', headers: t.headers, payload: { name: 'temp' } })
    ).json();
    assert.equal((await usersWith(k.key)).statusCode, 200);
    const del = await inject({ method: 'DELETE', url: `/api/v1/api-keys/${k.id}`, headers: t.headers });
    assert.equal(del.statusCode, 200, del.body);
    assertError(await usersWith(k.key), 401, 'invalid_api_key');
    assertError(
      await inject({ method: 'DELETE', url: `/api/v1/api-keys/${k.id}`, headers: t.headers }),
      404,
      'not_found',
    );
  });

  it('rotates with a grace period: both secrets work until it ends; grace 0 stops the old one at once', async () => {
    const t = await createTenant(ctx());
    const k = (
      await inject({ method: 'POST', url: '/api/v1/api-keys', headers: t.headers, payload: { name: 'rot' } })
    ).json();
    const rotated = await inject({
      method: 'POST',
      url: `/api/v1/api-keys/${k.id}/rotate`,
      headers: t.headers,
      payload: { grace_seconds: 3600 },
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const r = rotated.json();
    assert.equal(r.id, k.id, 'the key keeps its id');
    assert.notEqual(r.key, k.key);
    assert.ok(Date.parse(r.previous_key_expires_at) - Date.now() > 3500_000);
    assert.equal((await usersWith(k.key)).statusCode, 200, 'old secret inside the grace period');
    assert.equal((await usersWith(r.key)).statusCode, 200);
    // The grace period ends: the old secret stops.
    await ctx()
      .container.database.db.updateTable('api_keys')
      .set({ previous_expires_at: Date.now() - 1 })
      .where('id', '=', k.id)
      .execute();
    assertError(await usersWith(k.key), 401, 'invalid_api_key');
    assert.equal((await usersWith(r.key)).statusCode, 200);

    const r2 = (await inject({ method: 'POST', url: `/api/v1/api-keys/${k.id}/rotate`, headers: t.headers })).json();
    assertError(await usersWith(r.key), 401, 'invalid_api_key');
    assert.equal((await usersWith(r2.key)).statusCode, 200);
    // Revoking ends the key and any grace of a previous secret.
    const r3 = (
      await inject({
        method: 'POST',
        url: `/api/v1/api-keys/${k.id}/rotate`,
        headers: t.headers,
        payload: { grace_seconds: 600 },
      })
    ).json();
    await inject({ method: 'DELETE', url: `/api/v1/api-keys/${k.id}`, headers: t.headers });
    assertError(await usersWith(r2.key), 401, 'invalid_api_key');
    assertError(await usersWith(r3.key), 401, 'invalid_api_key');
  });

  it('test keys work only in the sandbox and live keys only outside it; POST environment=test belongs to the twin', async () => {
    const t = await createTenant(ctx());
    const live = await usersWith(t.testApiKey);
    const body = assertError(live, 401, 'invalid_api_key');
    assert.match(body.message, /sandbox/);
    assert.equal((await usersWith(t.testApiKey, true)).statusCode, 200);
    assertError(await usersWith(t.apiKey, true), 401, 'invalid_api_key');

    const created = (
      await inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: t.headers,
        payload: { name: 'sbx', environment: 'test' },
      })
    ).json();
    assert.match(created.key, /^ak_test_/);
    const row = await ctx()
      .container.database.db.selectFrom('api_keys')
      .select('tenant_id')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const twin = await ctx()
      .container.database.db.selectFrom('tenants')
      .select('id')
      .where('sandbox_of', '=', t.tenantId)
      .executeTakeFirst();
    assert.equal(row.tenant_id, twin!.id);
    const me = await inject({ method: 'GET', url: '/sandbox/api/v1/auth/me', headers: { 'x-api-key': created.key } });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().auth.sandbox, true);
    // Managing keys from the sandbox sees the same keys.
    const fromSandbox = await inject({
      method: 'GET',
      url: '/sandbox/api/v1/api-keys',
      headers: { 'x-api-key': created.key },
    });
    assert.equal(fromSandbox.json().total, 3);
  });

  it('only owners, admins and API keys manage keys', async () => {
    const t = await createTenant(ctx());
    for (const role of ['member', 'viewer'] as const) {
      const u = await loginAs(ctx(), t, role);
      assertError(await inject({ method: 'GET', url: '/api/v1/api-keys', headers: u.headers }), 403, 'forbidden');
      assertError(
        await inject({ method: 'POST', url: '/api/v1/api-keys', headers: u.headers, payload: { name: 'x' } }),
        403,
        'forbidden',
      );
    }
    const admin = await loginAs(ctx(), t, 'admin');
    const res = await inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: admin.headers,
      payload: { name: 'by admin' },
    });
    assert.equal(res.statusCode, 201, res.body);
  });

  it('validates bodies', async () => {
    const t = await createTenant(ctx());
    assertError(
      await inject({ method: 'POST', url: '/api/v1/api-keys', headers: t.headers, payload: {} }),
      400,
      'validation_error',
    );
    assertError(
      await inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: t.headers,
        payload: { name: 'x', environment: 'prod' },
      }),
      400,
      'validation_error',
    );
    const k = (
      await inject({ method: 'POST', url: '/api/v1/api-keys', headers: t.headers, payload: { name: 'v' } })
    ).json();
    assertError(
      await inject({
        method: 'POST',
        url: `/api/v1/api-keys/${k.id}/rotate`,
        headers: t.headers,
        payload: { grace_seconds: -1 },
      }),
      400,
      'validation_error',
    );
  });
});
