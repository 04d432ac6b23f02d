import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { TestApp } from '../../../support/app.ts';
import { DIALECTS } from '../../../support/app.ts';
import { assertError, createTenant } from '../../../support/fixtures.ts';
import { startTwoApps } from './shared-store.ts';
import { REDIS_URL, redisAvailable } from '../../../support/redis.ts';

const available = await redisAvailable();

for (const dialect of DIALECTS) {
  describe(`sign-in limits shared through Redis by two API processes [${dialect}]`, {
    skip: available ? false : 'no Redis at TEST_REDIS_URL',
  }, () => {
    const prefix = `dms-test-signin:${process.pid}:${Date.now()}:${dialect}:`;
    let apps: Awaited<ReturnType<typeof startTwoApps>>;
    before(async () => {
      apps = await startTwoApps(dialect, { REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix });
    });
    after(async () => {
      await apps?.close();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });

    const login = (t: TestApp, subdomain: string, email: string, password: string, from: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': subdomain },
        payload: { email, password },
        remoteAddress: from,
      });

    it('counts an account’s failures on both processes against one limit, and both refuse it once locked', async () => {
      const t = await createTenant(apps.a, { tier: 'enterprise' });
      for (let i = 0; i < 10; i++) {
        assertError(
          await login(i % 2 ? apps.a : apps.b, t.subdomain, t.ownerEmail, `wrong ${i}`, '203.0.113.50'),
          401,
          'unauthorized',
        );
      }
      for (const app of [apps.a, apps.b]) {
        const locked = await login(app, t.subdomain, t.ownerEmail, t.ownerPassword, '203.0.113.51');
        const body = assertError(locked, 429, 'rate_limit_exceeded');
        assert.equal(body.details.scope, 'sign_in_account');
        const retryAfter = Number(locked.headers['retry-after']);
        assert.ok(retryAfter > 890 && retryAfter <= 900, `Retry-After ${retryAfter}`);
      }
      // The counters are in Redis under the configured prefix, and hold no e-mail address.
      const redis = new Redis(REDIS_URL);
      try {
        const keys = await redis.keys(`${prefix}signin:*`);
        assert.ok(
          keys.some((k) => k.endsWith(':l')),
          keys.join(', '),
        );
        assert.ok(
          keys.every((k) => !k.includes('@')),
          keys.join(', '),
        );
      } finally {
        await redis.quit();
      }
    });

    it('shares a client’s failures too, and a success on one process clears the account on both', async () => {
      const t = await createTenant(apps.a, { tier: 'team' });
      for (let i = 0; i < 9; i++) {
        assertError(
          await login(i % 2 ? apps.a : apps.b, t.subdomain, t.ownerEmail, `wrong ${i}`, '203.0.113.60'),
          401,
          'unauthorized',
        );
      }
      assert.equal((await login(apps.a, t.subdomain, t.ownerEmail, t.ownerPassword, '203.0.113.60')).statusCode, 200);
      // Nine more failures, on the other process: not ten in a row, so no lock.
      for (let i = 0; i < 9; i++)
        assertError(await login(apps.b, t.subdomain, t.ownerEmail, `again ${i}`, '203.0.113.61'), 401, 'unauthorized');
      assert.equal((await login(apps.b, t.subdomain, t.ownerEmail, t.ownerPassword, '203.0.113.61')).statusCode, 200);
    });
  });
}
