import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DialectName } from '../../src/db/database.ts';
import { startTestApp } from '../support/app.ts';
import { assertError, createTenant } from '../support/fixtures.ts';

// Nothing listens on port 1: every counter call fails, as with Redis down.
const DEAD_REDIS = 'redis://127.0.0.1:1';
const dialect: DialectName = 'sqlite';

describe('rate limiting with the Redis counter store down', () => {
  it('auto (default): ordinary requests pass uncounted, auth requests are refused with 503; both are counted in metrics', async () => {
    const t = await startTestApp(dialect, { env: { REDIS_URL: DEAD_REDIS } });
    try {
      const tenant = await createTenant(t);
      const ok = await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: tenant.headers });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.headers['x-ratelimit-limit'], undefined);
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': tenant.subdomain },
        payload: { email: tenant.ownerEmail, password: tenant.ownerPassword },
      });
      const body = assertError(login, 503, 'service_unavailable');
      assert.match(body.message, /retry/i);
      assert.equal(login.headers['retry-after'], '5');
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /rate_limit_store_errors_total\{outcome="allowed"\} [1-9]/);
      assert.match(metrics.body, /rate_limit_store_errors_total\{outcome="refused"\} [1-9]/);
    } finally {
      await t.close();
    }
  });

  it('open lets auth requests through; closed refuses everything', async () => {
    const open = await startTestApp(dialect, { env: { REDIS_URL: DEAD_REDIS, RATE_LIMIT_REDIS_FAILURE: 'open' } });
    try {
      const tenant = await createTenant(open);
      const login = await open.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': tenant.subdomain },
        payload: { email: tenant.ownerEmail, password: tenant.ownerPassword },
      });
      assert.equal(login.statusCode, 200, login.body);
    } finally {
      await open.close();
    }
    const closed = await startTestApp(dialect, { env: { REDIS_URL: DEAD_REDIS, RATE_LIMIT_REDIS_FAILURE: 'closed' } });
    try {
      const tenant = await createTenant(closed);
      assertError(
        await closed.app.inject({ method: 'GET', url: '/api/v1/users', headers: tenant.headers }),
        503,
        'service_unavailable',
      );
    } finally {
      await closed.close();
    }
  });
});
