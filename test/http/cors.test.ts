import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, loginAs } from '../support/fixtures.ts';

describeEachDialect('CORS per tenant', (ctx) => {
  const inject = (opts: InjectOptions) => ctx().app.inject(opts);
  const preflight = (origin: string, method = 'POST') =>
    inject({
      method: 'OPTIONS',
      url: '/api/v1/workspaces',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'x-api-key, idempotency-key, content-type',
      },
    });

  it('answers preflights for configured origins with the API’s headers, and denies others', async () => {
    const t = await createTenant(ctx());
    const origin = `https://app-${t.subdomain}.example.com`;
    const denied = await preflight(origin);
    assert.equal(denied.headers['access-control-allow-origin'], undefined);

    const patched = await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { cors_origins: [origin] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const allowed = await preflight(origin);
    assert.equal(allowed.statusCode, 204);
    assert.equal(allowed.headers['access-control-allow-origin'], origin);
    assert.match(String(allowed.headers.vary), /Origin/);
    const allowHeaders = String(allowed.headers['access-control-allow-headers']).toLowerCase();
    for (const h of [
      'x-api-key',
      'authorization',
      'x-tenant-subdomain',
      'x-csrf-token',
      'idempotency-key',
      'content-type',
    ]) {
      assert.ok(allowHeaders.includes(h), `${h} allowed`);
    }
    assert.match(String(allowed.headers['access-control-allow-methods']), /DELETE/);
    // Preflights are neither authenticated nor rate limited.
    assert.equal(allowed.headers['x-ratelimit-limit'], undefined);
    assert.equal((await preflight('https://evil.example.com')).headers['access-control-allow-origin'], undefined);
    // Through the sandbox prefix too.
    const sandbox = await inject({
      method: 'OPTIONS',
      url: '/sandbox/api/v1/users',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    assert.equal(sandbox.headers['access-control-allow-origin'], origin);
  });

  it('holds real requests to the caller’s own tenant origins and exposes rate-limit and request-id headers', async () => {
    const a = await createTenant(ctx());
    const b = await createTenant(ctx());
    const originA = `https://a-${a.subdomain}.example.com`;
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${a.tenantId}`,
      payload: { cors_origins: [originA] },
    });

    const own = await inject({ method: 'GET', url: '/api/v1/users', headers: { ...a.headers, origin: originA } });
    assert.equal(own.statusCode, 200);
    assert.equal(own.headers['access-control-allow-origin'], originA);
    const exposed = String(own.headers['access-control-expose-headers']).toLowerCase();
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id', 'retry-after'])
      assert.ok(exposed.includes(h), h);

    // Tenant B did not configure A's origin: its answers carry no Allow-Origin (the browser hides them).
    const foreign = await inject({ method: 'GET', url: '/api/v1/users', headers: { ...b.headers, origin: originA } });
    assert.equal(foreign.statusCode, 200);
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);

    // User tokens and login name the tenant with X-Tenant-Subdomain.
    const u = await loginAs(ctx(), a, 'member');
    const withToken = await inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { ...u.headers, origin: originA },
    });
    assert.equal(withToken.headers['access-control-allow-origin'], originA);
    const loginB = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': b.subdomain, origin: originA },
      payload: { email: b.ownerEmail, password: b.ownerPassword },
    });
    assert.equal(loginB.statusCode, 200);
    assert.equal(loginB.headers['access-control-allow-origin'], undefined);
    const loginA = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': a.subdomain, origin: originA },
      payload: { email: a.ownerEmail, password: a.ownerPassword },
    });
    assert.equal(loginA.headers['access-control-allow-origin'], originA);
  });

  it('lets a page be an MCP client and make conditional and range requests, and read the answers’ headers', async () => {
    const t = await createTenant(ctx());
    const origin = `https://mcp-${t.subdomain}.example.com`;
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { cors_origins: [origin] },
    });
    const wanted = [
      'mcp-protocol-version',
      'mcp-session-id',
      'if-none-match',
      'if-range',
      'if-match',
      'last-event-id',
      'range',
    ];
    for (const url of ['/mcp', '/api/v1/documents/x/download']) {
      const res = await inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': url === '/mcp' ? 'POST' : 'GET',
          'access-control-request-headers': wanted.join(', '),
        },
      });
      assert.equal(res.statusCode, 204, url);
      assert.equal(res.headers['access-control-allow-origin'], origin, url);
      const allowHeaders = String(res.headers['access-control-allow-headers'])
        .toLowerCase()
        .split(/\s*,\s*/);
      for (const h of wanted) assert.ok(allowHeaders.includes(h), `${h} allowed on ${url}`);
    }
    const real = await inject({ method: 'GET', url: '/api/v1/users', headers: { ...t.headers, origin } });
    const exposed = String(real.headers['access-control-expose-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const h of [
      'content-range',
      'accept-ranges',
      'etag',
      'last-modified',
      'retry-after',
      'x-request-id',
      'idempotent-replayed',
      'mcp-session-id',
    ]) {
      assert.ok(exposed.includes(h), `${h} exposed`);
    }
  });

  it('stops allowing an origin once the tenant removes it or is suspended', async () => {
    const t = await createTenant(ctx());
    const origin = `https://gone-${t.subdomain}.example.com`;
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { cors_origins: [origin] },
    });
    assert.equal((await preflight(origin)).headers['access-control-allow-origin'], origin);
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { status: 'suspended' },
    });
    assert.equal((await preflight(origin)).headers['access-control-allow-origin'], undefined);
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { status: 'active', cors_origins: [] },
    });
    assert.equal((await preflight(origin)).headers['access-control-allow-origin'], undefined);
  });
});
