import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../../support/fixtures.ts';

/** What the caches remember never outlives the service clock's verdict on it. */
const clock = { at: Date.now(), now: () => clock.at };

describeEachDialect(
  'credential cache and time',
  (ctx) => {
    const me = (headers: Record<string, string>) =>
      ctx().app.inject({ method: 'GET', url: '/api/v1/auth/me', headers });

    it('a cached, already verified access token stops at its expiry', async () => {
      const t = await createTenant(ctx());
      const u = await loginAs(ctx(), t, 'member');
      for (let i = 0; i < 3; i++) assert.equal((await me(u.headers)).statusCode, 200);
      clock.at += 899_000;
      assert.equal((await me(u.headers)).statusCode, 200, 'one second before expiry');
      clock.at += 1_000;
      assertError(await me(u.headers), 401, 'unauthorized');
      // A fresh token of the same session works again (the session was not refused from the cache).
      const refreshed = await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: u.refreshToken },
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.equal(
        (await me({ ...u.headers, authorization: `Bearer ${refreshed.json().access_token}` })).statusCode,
        200,
      );
    });

    it('a cached API key keeps last_used_at coalesced to one write a minute', async () => {
      const t = await createTenant(ctx());
      const lastUsed = async () =>
        (
          await ctx()
            .container.database.db.selectFrom('api_keys')
            .select('last_used_at')
            .where('tenant_id', '=', t.tenantId)
            .executeTakeFirstOrThrow()
        ).last_used_at;
      assert.equal((await me(t.headers)).statusCode, 200);
      const first = await lastUsed();
      assert.equal(first, clock.at);
      clock.at += 30_000;
      assert.equal((await me(t.headers)).statusCode, 200);
      assert.equal(await lastUsed(), first, 'not written again within the minute');
      clock.at += 31_000;
      assert.equal((await me(t.headers)).statusCode, 200);
      assert.equal(await lastUsed(), clock.at, 'written again after it');
    });
  },
  { clock },
);
