import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { classifyRoute, rateLimitClassOf, sandboxLimit } from '../../src/http/rate-limit.ts';
import { describeEachDialect } from '../support/app.ts';
import { assertError, createTenant, loginAs } from '../support/fixtures.ts';

/** A clock standing still a second into the current minute, so no test straddles a window boundary. */
function frozenClock() {
  const now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
  return { now: () => now, windowEnd: now - 1_000 + 60_000 };
}

describe('rate limit classification (contract §5)', () => {
  it('takes the class a route declares; undeclared tenant routes are general, admin and public ones unlimited', () => {
    assert.deepEqual(classifyRoute('/api/v1/anything', { rateLimit: 'chat' }), { type: 'chat' });
    assert.deepEqual(classifyRoute('/api/v1/dag/workflows', { rateLimit: 'workflow_execute' }), {
      workflow: 'workflow_execute',
    });
    assert.equal(classifyRoute('/api/v1/anything', { rateLimit: false }), false);
    assert.deepEqual(classifyRoute('/api/v1/documents', undefined), { type: 'general' });
    assert.equal(classifyRoute('/api/v1/admin/tenants', { auth: 'admin' }), false);
    assert.equal(classifyRoute('/healthz', undefined), false);
    assert.deepEqual(classifyRoute('/api/v1/auth/register', { auth: 'public', rateLimit: 'authentication' }), {
      type: 'authentication',
    });
    assert.deepEqual(
      classifyRoute('/api/v1/auth/login', { auth: 'public', rateLimit: 'authentication', limitedByFailures: true }),
      {
        type: 'authentication',
        failuresOnly: true,
      },
    );
    assert.throws(
      () => classifyRoute('/api/v1/x', { rateLimit: 'nonsense' }),
      /unknown rate-limit class "nonsense" on \/api\/v1\/x/,
    );
  });
  it('halves sandbox limits, never below 5', () => {
    assert.equal(sandboxLimit(15), 7);
    assert.equal(sandboxLimit(300), 150);
    assert.equal(sandboxLimit(5), 5);
    assert.equal(sandboxLimit(8), 5);
  });
});

const clock = frozenClock();
describeEachDialect(
  'rate limits (in-memory counters)',
  (ctx) => {
    const inject = (opts: InjectOptions) => ctx().app.inject(opts);

    it('gives every route of the service the class of its spec endpoint type', () => {
      const cases: [string, string, unknown][] = [
        ['POST', '/api/v1/auth/login', { type: 'authentication', failuresOnly: true }],
        ['POST', '/api/v1/auth/refresh', { type: 'authentication' }],
        ['GET', '/api/v1/auth/me', { type: 'authentication' }],
        ['GET', '/api/v1/api-keys', { type: 'authentication' }],
        ['POST', '/api/v1/api-keys/:id/rotate', { type: 'authentication' }],
        ['POST', '/api/v1/documents/upload', { type: 'document_upload' }],
        ['POST', '/api/v1/documents/upload-batch', { type: 'document_upload' }],
        ['GET', '/api/v1/documents', { type: 'general' }],
        ['GET', '/api/v1/users', { type: 'general' }],
        ['GET', '/api/v1/admin/tenants', false],
        ['GET', '/healthz', false],
        ['GET', '/metrics', false],
        ['GET', '/api/v1/openapi.json', false],
      ];
      for (const [method, url, expected] of cases)
        assert.deepEqual(rateLimitClassOf(ctx().app, method, url), expected, `${method} ${url}`);
    });

    it('counts per tenant in one-minute windows and answers 429 with headers, details and Retry-After', async () => {
      const t = await createTenant(ctx(), { tier: 'free' });
      const other = await createTenant(ctx(), { tier: 'free' });
      const reset = String(clock.windowEnd / 1000);
      for (let i = 1; i <= 15; i++) {
        const res = await inject({ method: 'GET', url: '/api/v1/users', headers: t.headers });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], '15');
        assert.equal(res.headers['x-ratelimit-remaining'], String(15 - i));
        assert.equal(res.headers['x-ratelimit-reset'], reset);
      }
      const over = await inject({ method: 'GET', url: '/api/v1/users', headers: t.headers });
      const body = assertError(over, 429, 'rate_limit_exceeded');
      assert.equal(body.details.limit, 15);
      assert.equal(body.details.remaining, 0);
      assert.equal(body.details.reset_at, new Date(clock.windowEnd).toISOString());
      assert.equal(over.headers['retry-after'], '59');
      assert.equal(over.headers['x-ratelimit-remaining'], '0');
      assert.equal(over.headers['x-ratelimit-reset'], reset);
      // Another tenant has its own budget.
      assert.equal((await inject({ method: 'GET', url: '/api/v1/users', headers: other.headers })).statusCode, 200);
    });

    it('describes the tighter of the tier-wide and endpoint-type limits', async () => {
      const t = await createTenant(ctx(), { tier: 'free' });
      // Authentication type: 10 a minute, tighter than the Free tier's 15.
      const keys = await inject({ method: 'GET', url: '/api/v1/api-keys', headers: t.headers });
      assert.equal(keys.headers['x-ratelimit-limit'], '10');
      assert.equal(keys.headers['x-ratelimit-remaining'], '9');
      // Spend the tier-wide budget on general requests: now the tier is tighter for auth requests too.
      for (let i = 0; i < 12; i++) await inject({ method: 'GET', url: '/api/v1/users', headers: t.headers });
      const after = await inject({ method: 'GET', url: '/api/v1/api-keys', headers: t.headers });
      assert.equal(after.headers['x-ratelimit-limit'], '15');
      assert.equal(after.headers['x-ratelimit-remaining'], '1');
      await inject({ method: 'GET', url: '/api/v1/users', headers: t.headers });
      const body = assertError(
        await inject({ method: 'GET', url: '/api/v1/api-keys', headers: t.headers }),
        429,
        'rate_limit_exceeded',
      );
      assert.equal(body.details.limit, 15);
    });

    it('gives the sandbox half the limits', async () => {
      const t = await createTenant(ctx(), { tier: 'free' });
      const headers = { 'x-api-key': t.testApiKey };
      for (let i = 1; i <= 7; i++) {
        const res = await inject({ method: 'GET', url: '/sandbox/api/v1/users', headers });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], '7');
      }
      assertError(await inject({ method: 'GET', url: '/sandbox/api/v1/users', headers }), 429, 'rate_limit_exceeded');
      // The live tenant's budget is untouched.
      assert.equal(
        (await inject({ method: 'GET', url: '/api/v1/users', headers: t.headers })).headers['x-ratelimit-remaining'],
        '14',
      );
    });

    it('never counts unauthenticated auth requests against the tenant they name; sign-ins are not counted per minute at all', async () => {
      const t = await createTenant(ctx(), { tier: 'free' });
      // Ten wrong logins (the Free tier's Authentication budget) from one client...
      for (let i = 0; i < 10; i++) {
        const res = await inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          headers: { 'x-tenant-subdomain': t.subdomain },
          payload: { email: `nobody${i}@example.com`, password: 'guess' },
          remoteAddress: '10.2.2.2',
        });
        assertError(res, 401, 'unauthorized');
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
      // ...spend nothing of the tenant's: its owner signs in, its API keys keep their whole budget.
      const owner = await inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': t.subdomain },
        payload: { email: t.ownerEmail, password: t.ownerPassword },
        remoteAddress: '10.2.2.2',
      });
      assert.equal(owner.statusCode, 200, owner.body);
      const keys = await inject({ method: 'GET', url: '/api/v1/api-keys', headers: t.headers });
      assert.equal(keys.headers['x-ratelimit-remaining'], '9');
      // A password-reset request naming the tenant is counted per client (3 a minute in this suite).
      const forgot = () =>
        inject({
          method: 'POST',
          url: '/api/v1/auth/password/forgot',
          headers: { 'x-tenant-subdomain': t.subdomain },
          payload: { email: t.ownerEmail },
          remoteAddress: '10.2.2.3',
        });
      for (let i = 0; i < 3; i++) assert.equal((await forgot()).headers['x-ratelimit-limit'], '3');
      assertError(await forgot(), 429, 'rate_limit_exceeded');
    });

    it('limits unauthenticated auth requests without a tenant per client IP', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await inject({
          method: 'POST',
          url: '/api/v1/auth/refresh',
          payload: { refresh_token: 'rt_nope' },
          remoteAddress: '10.1.1.1',
        });
        assertError(res, 401, 'unauthorized');
        assert.equal(res.headers['x-ratelimit-limit'], '3');
      }
      assertError(
        await inject({
          method: 'POST',
          url: '/api/v1/auth/refresh',
          payload: { refresh_token: 'rt_nope' },
          remoteAddress: '10.1.1.1',
        }),
        429,
        'rate_limit_exceeded',
      );
      const elsewhere = await inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: 'rt_nope' },
        remoteAddress: '10.1.1.2',
      });
      assertError(elsewhere, 401, 'unauthorized');
    });

    it('counts user-token requests against the tenant too', async () => {
      const t = await createTenant(ctx(), { tier: 'starter' });
      const u = await loginAs(ctx(), t, 'member');
      const res = await inject({ method: 'GET', url: '/api/v1/workspaces', headers: u.headers });
      assert.equal(res.headers['x-ratelimit-limit'], '30');
      // POST /users by the fixture + this one (the login, unauthenticated, is not the tenant's)
      assert.equal(res.headers['x-ratelimit-remaining'], '28');
    });

    it('counts a user-token request refused for its CSRF token, with the X-RateLimit-* headers', async () => {
      const t = await createTenant(ctx(), { tier: 'starter' });
      const u = await loginAs(ctx(), t, 'member');
      const { 'x-csrf-token': _csrf, ...noCsrf } = u.headers;
      const refused = await inject({
        method: 'POST',
        url: '/api/v1/workspaces',
        headers: noCsrf,
        payload: { name: 'No CSRF' },
      });
      assertError(refused, 403, 'csrf_token_invalid');
      assert.equal(refused.headers['x-ratelimit-limit'], '30');
      // POST /users by the fixture + this refused request
      assert.equal(refused.headers['x-ratelimit-remaining'], '28');
      assert.equal(refused.headers['x-ratelimit-reset'], String(clock.windowEnd / 1000));
      const next = await inject({ method: 'GET', url: '/api/v1/workspaces', headers: u.headers });
      assert.equal(next.headers['x-ratelimit-remaining'], '27');
    });

    it('does not limit admin, health and metrics; an unlimited tier is held to its ceiling and says so', async () => {
      const t = await createTenant(ctx(), { tier: 'enterprise' });
      for (let i = 0; i < 20; i++) await ctx().admin({ method: 'GET', url: '/api/v1/admin/tenants' });
      for (const url of ['/healthz', '/metrics']) {
        const res = await inject({ method: 'GET', url });
        assert.equal(res.headers['x-ratelimit-limit'], undefined, url);
      }
      const admin = await ctx().admin({ method: 'GET', url: '/api/v1/admin/tenants' });
      assert.equal(admin.statusCode, 200);
      assert.equal(admin.headers['x-ratelimit-limit'], undefined);
      const res = await inject({ method: 'GET', url: '/api/v1/users', headers: t.headers });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '10000');
      assert.equal(res.headers['x-ratelimit-remaining'], '9999');
    });
  },
  { clock, env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' } },
);
