import assert from 'node:assert/strict';
import { it } from 'node:test';
import { uploadOk } from '../../documents/helpers.ts';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant } from '../../../support/fixtures.ts';

const owner = { email: 'boss@example.com', password: 'a long password', name: 'Boss' };

describeEachDialect('admin tenants', (ctx) => {
  it('creates a tenant with owner, a live key and a test key', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 'Acme', subdomain: 'acme', owner },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.tenant.name, 'Acme');
    assert.equal(body.tenant.subdomain, 'acme');
    assert.equal(body.tenant.tier, 'free');
    assert.match(body.tenant.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(Object.keys(body.owner).sort(), ['email', 'id', 'name', 'role']);
    assert.equal(body.owner.role, 'owner');
    assert.match(body.api_key, /^ak_live_[A-Za-z0-9_-]{43}$/);
    assert.match(body.test_api_key, /^ak_test_[A-Za-z0-9_-]{43}$/);
    // Secrets are stored only as hashes.
    const rows = await ctx().container.database.db.selectFrom('api_keys').select(['key_hash', 'prefix']).execute();
    for (const row of rows) {
      assert.notEqual(row.key_hash, body.api_key);
      assert.ok(!body.api_key.startsWith(row.key_hash));
    }
  });

  it('refuses a taken subdomain with 409 conflict', async () => {
    await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 'One', subdomain: 'taken', owner },
    });
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 'Two', subdomain: 'taken', owner },
    });
    assertError(res, 409, 'conflict');
  });

  it('validates subdomain, tier and owner', async () => {
    for (const payload of [
      { name: 'x', subdomain: 'UPPER', owner },
      { name: 'x', subdomain: 'has_underscore', owner },
      { name: 'x', subdomain: '-leading', owner },
      { name: 'x', subdomain: 'ok-sub', tier: 'platinum', owner },
      { name: 'x', subdomain: 'ok-sub', owner: { ...owner, email: 'not-an-email' } },
      { name: 'x', subdomain: 'ok-sub', owner: { ...owner, password: 'short' } },
      { name: '', subdomain: 'ok-sub', owner },
      { name: '   ', subdomain: 'ok-sub', owner },
    ]) {
      assertError(
        await ctx().admin({ method: 'POST', url: '/api/v1/admin/tenants', payload }),
        400,
        'validation_error',
      );
    }
  });

  it('lists tenants paged, without sandbox twins', async () => {
    await createTenant(ctx());
    await createTenant(ctx());
    const res = await ctx().admin({ method: 'GET', url: '/api/v1/admin/tenants?page=1&page_size=2' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.page, 1);
    assert.equal(body.page_size, 2);
    assert.equal(body.data.length, 2);
    assert.ok(body.total >= 2);
    assert.ok(body.data.every((t: { subdomain: string }) => !t.subdomain.includes('.')));
    const all = await ctx().admin({ method: 'GET', url: '/api/v1/admin/tenants?page_size=100' });
    assert.equal(all.json().data.length, all.json().total);
  });

  it('gets a tenant with usage counts, and 404 for an unknown id', async () => {
    const t = await createTenant(ctx());
    const res = await ctx().admin({ method: 'GET', url: `/api/v1/admin/tenants/${t.tenantId}` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, t.tenantId);
    assert.deepEqual(res.json().usage, { users: 1, api_keys: 1, documents: 0, storage_bytes: 0 });
    // Documents and bytes come from the documents module (its counters), beside identity's own counts.
    await uploadOk(ctx(), t.headers, { filename: 'a.txt', content: Buffer.from('twelve bytes') });
    const after = await ctx().admin({ method: 'GET', url: `/api/v1/admin/tenants/${t.tenantId}` });
    assert.deepEqual(after.json().usage, { users: 1, api_keys: 1, documents: 1, storage_bytes: 12 });
    assertError(
      await ctx().admin({ method: 'GET', url: '/api/v1/admin/tenants/00000000-0000-7000-8000-000000000000' }),
      404,
      'not_found',
    );
  });

  it('updates tier, status and CORS origins; an empty patch is 400', async () => {
    const t = await createTenant(ctx(), { tier: 'free' });
    const res = await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { tier: 'pro', cors_origins: ['https://app.example.com'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().tier, 'pro');
    assert.deepEqual(res.json().cors_origins, ['https://app.example.com']);
    assertError(
      await ctx().admin({ method: 'PATCH', url: `/api/v1/admin/tenants/${t.tenantId}`, payload: {} }),
      400,
      'validation_error',
    );
    assertError(
      await ctx().admin({
        method: 'PATCH',
        url: `/api/v1/admin/tenants/${t.tenantId}`,
        payload: { status: 'deleted' },
      }),
      400,
      'validation_error',
    );
  });

  it('refuses a suspended tenant with 403 tenant_suspended', async () => {
    const t = await createTenant(ctx());
    const before = await ctx().app.inject({
      method: 'GET',
      url: '/api/v1/no-route-but-authenticated',
      headers: t.headers,
    });
    assert.equal(before.statusCode, 404);
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { status: 'suspended' },
    });
    const probe = ctx().container.authenticators.apiKey(t.apiKey, { sandbox: false });
    await assert.rejects(probe, (e: { error?: string }) => e.error === 'tenant_suspended');
  });

  it('replays a retried creation with the same Idempotency-Key, and refuses the key for another body', async () => {
    const payload = { name: 'Retry Co', subdomain: 'retry-co', owner };
    const send = (body: object) =>
      ctx().admin({
        method: 'POST',
        url: '/api/v1/admin/tenants',
        headers: { 'idempotency-key': 'create-retry-co' },
        payload: body,
      });
    const first = await send(payload);
    assert.equal(first.statusCode, 201, first.body);
    const again = await send(payload);
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assertError(await send({ ...payload, name: 'Another name' }), 422, 'idempotency_key_reused');
    // Without the key, a repeat is a new request: the subdomain is taken.
    assertError(await ctx().admin({ method: 'POST', url: '/api/v1/admin/tenants', payload }), 409, 'conflict');
    const stored = JSON.stringify(
      await ctx()
        .container.database.db.selectFrom('idempotency_records')
        .selectAll()
        .where('scope', '=', 'admin')
        .execute(),
    );
    assert.ok(!stored.includes(first.json().api_key), 'the new API key is not stored in clear');
  });

  it('never accepts a tenant API key on admin endpoints', async () => {
    const t = await createTenant(ctx());
    const res = await ctx().app.inject({
      method: 'GET',
      url: '/api/v1/admin/tenants',
      headers: { authorization: `Bearer ${t.apiKey}` },
    });
    assertError(res, 401, 'unauthorized');
    const res2 = await ctx().app.inject({ method: 'GET', url: '/api/v1/admin/tenants', headers: t.headers });
    assertError(res2, 401, 'unauthorized');
  });
});
