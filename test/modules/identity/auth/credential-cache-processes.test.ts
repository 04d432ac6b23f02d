import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { InjectOptions } from 'fastify';
import { DIALECTS, type TestApp } from '../../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../../support/fixtures.ts';
import { cacheStats, startTwoApps, untilLive, warm, within } from './shared-store.ts';

/*
 * Issue 10 item 3: credentials are cached per process, and every change that ends or alters one
 * takes effect on every process within one second. Two API processes (containers) share one
 * store; each change is made through A and watched on B, whose cache held the credential.
 */
for (const dialect of DIALECTS) {
  describe(`credential cache across processes [${dialect}]`, () => {
    let a: TestApp;
    let b: TestApp;
    let close: () => Promise<void>;
    before(async () => {
      ({ a, b, close } = await startTwoApps(dialect));
    });
    after(async () => {
      await close?.();
    });
    const send = (t: TestApp, opts: InjectOptions) => t.app.inject(opts);
    const me = (t: TestApp, headers: Record<string, string>) =>
      send(t, { method: 'GET', url: '/api/v1/auth/me', headers });

    it('a revoked API key is refused within one second on every process (at once on the one that revoked it)', async (tc) => {
      const t = await createTenant(a);
      const created = await send(a, {
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: t.headers,
        payload: { name: 'revoke me' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const key = created.json() as { id: string; key: string };
      const users = (on: TestApp) => () =>
        send(on, { method: 'GET', url: '/api/v1/users', headers: { 'x-api-key': key.key } });
      await warm(a, users(a));
      await warm(b, users(b));

      const started = performance.now();
      const revoked = await send(a, { method: 'DELETE', url: `/api/v1/api-keys/${key.id}`, headers: t.headers });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assertError(await users(a)(), 401, 'invalid_api_key');
      const ms = await within(started, users(b), (r) => r.statusCode === 401);
      assert.ok(ms < 1_000, `refused on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`refused on B after ${Math.round(ms)} ms`);
      assertError(await users(b)(), 401, 'invalid_api_key');
    });

    it('a rotation without grace retires the old secret on every process within one second', async (tc) => {
      const t = await createTenant(a);
      const key = (
        await send(a, { method: 'POST', url: '/api/v1/api-keys', headers: t.headers, payload: { name: 'rotate me' } })
      ).json() as { id: string; key: string };
      const users = (on: TestApp, secret: string) => () =>
        send(on, { method: 'GET', url: '/api/v1/users', headers: { 'x-api-key': secret } });
      await warm(b, users(b, key.key));
      const started = performance.now();
      const rotated = await send(a, {
        method: 'POST',
        url: `/api/v1/api-keys/${key.id}/rotate`,
        headers: t.headers,
        payload: { grace_seconds: 0 },
      });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const ms = await within(started, users(b, key.key), (r) => r.statusCode === 401);
      assert.ok(ms < 1_000, `old secret refused on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`old secret refused on B after ${Math.round(ms)} ms`);
      assert.equal((await users(b, rotated.json().key)()).statusCode, 200);
    });

    it('a suspended tenant is refused within one second on every process, for keys and user tokens; reactivation too', async (tc) => {
      const t = await createTenant(a);
      const owner = await loginAs(a, t, 'owner');
      const viaKey = (on: TestApp) => () => me(on, t.headers);
      const viaToken = (on: TestApp) => () => me(on, owner.headers);
      for (const on of [a, b]) {
        await warm(on, viaKey(on));
        await warm(on, viaToken(on));
      }
      const started = performance.now();
      const suspended = await a.admin({
        method: 'PATCH',
        url: `/api/v1/admin/tenants/${t.tenantId}`,
        payload: { status: 'suspended' },
      });
      assert.equal(suspended.statusCode, 200, suspended.body);
      assertError(await viaKey(a)(), 403, 'tenant_suspended');
      assertError(await viaToken(a)(), 403, 'tenant_suspended');
      for (const request of [viaKey(b), viaToken(b)]) {
        const ms = await within(started, request, (r) => r.statusCode === 403);
        assert.ok(ms < 1_000, `suspension seen on B after ${Math.round(ms)} ms`);
        tc.diagnostic(`suspension seen on B after ${Math.round(ms)} ms`);
        assertError(await request(), 403, 'tenant_suspended');
      }

      // A refusal is never cached: reactivation works at once here and within a second there.
      const reactivated = performance.now();
      assert.equal(
        (await a.admin({ method: 'PATCH', url: `/api/v1/admin/tenants/${t.tenantId}`, payload: { status: 'active' } }))
          .statusCode,
        200,
      );
      assert.equal((await viaKey(a)()).statusCode, 200);
      const ms = await within(reactivated, viaToken(b), (r) => r.statusCode === 200);
      assert.ok(ms < 1_000, `reactivation seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`reactivation seen on B after ${Math.round(ms)} ms`);
    });

    it('a tier change reaches the cached tenant of every process within one second', async (tc) => {
      const t = await createTenant(a);
      await warm(b, () => me(b, t.headers));
      assert.equal((await me(b, t.headers)).json().tenant.tier, 'team');
      const started = performance.now();
      assert.equal(
        (
          await a.admin({
            method: 'PATCH',
            url: `/api/v1/admin/tenants/${t.tenantId}`,
            payload: { tier: 'enterprise' },
          })
        ).statusCode,
        200,
      );
      const ms = await within(
        started,
        () => me(b, t.headers),
        (r) => r.json().tenant.tier === 'enterprise',
      );
      assert.ok(ms < 1_000, `tier seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`tier seen on B after ${Math.round(ms)} ms`);
    });

    it('a role change and a deactivation take effect within one second on the other process', async (tc) => {
      const t = await createTenant(a);
      const member = await loginAs(a, t, 'member');
      const keys = () => send(b, { method: 'GET', url: '/api/v1/api-keys', headers: member.headers });
      assert.equal((await warm(b, () => me(b, member.headers))).json().auth.role, 'member');
      assertError(await keys(), 403, 'forbidden');

      let started = performance.now();
      const promoted = await send(a, {
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: t.headers,
        payload: { role: 'admin' },
      });
      assert.equal(promoted.statusCode, 200, promoted.body);
      let ms = await within(started, keys, (r) => r.statusCode === 200);
      assert.ok(ms < 1_000, `promotion seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`promotion seen on B after ${Math.round(ms)} ms`);
      assert.equal((await me(b, member.headers)).json().auth.role, 'admin');
      // Custom roles ride along.
      started = performance.now();
      await send(a, {
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: t.headers,
        payload: { role: 'viewer', roles: ['auditor'] },
      });
      ms = await within(started, keys, (r) => r.statusCode === 403);
      assert.ok(ms < 1_000, `demotion seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`demotion seen on B after ${Math.round(ms)} ms`);

      started = performance.now();
      const disabled = await send(a, {
        method: 'PATCH',
        url: `/api/v1/users/${member.userId}`,
        headers: t.headers,
        payload: { status: 'disabled' },
      });
      assert.equal(disabled.statusCode, 200, disabled.body);
      ms = await within(
        started,
        () => me(b, member.headers),
        (r) => r.statusCode === 401,
      );
      assert.ok(ms < 1_000, `deactivation seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`deactivation seen on B after ${Math.round(ms)} ms`);
      assertError(await me(a, member.headers), 401, 'unauthorized');
    });

    it("a logged-out session's access token is refused within one second on the other process", async (tc) => {
      const t = await createTenant(a);
      const user = await loginAs(a, t, 'admin');
      const other = await loginAs(a, t, 'admin');
      await warm(b, () => me(b, user.headers));
      await warm(b, () => me(b, other.headers));

      let started = performance.now();
      const out = await send(a, { method: 'POST', url: '/api/v1/auth/logout', headers: user.headers });
      assert.ok(out.statusCode === 200 || out.statusCode === 204, out.body);
      assertError(await me(a, user.headers), 401, 'unauthorized');
      let ms = await within(
        started,
        () => me(b, user.headers),
        (r) => r.statusCode === 401,
      );
      assert.ok(ms < 1_000, `logout seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`logout seen on B after ${Math.round(ms)} ms`);

      // Revoking one session from another (DELETE /auth/sessions/{id}) likewise.
      const third = await loginAs(a, t, 'admin');
      await warm(b, () => me(b, third.headers));
      started = performance.now();
      const revoked = await send(a, {
        method: 'DELETE',
        url: `/api/v1/auth/sessions/${third.sessionId}`,
        headers: other.headers,
      });
      assert.ok(revoked.statusCode === 200 || revoked.statusCode === 204, revoked.body);
      ms = await within(
        started,
        () => me(b, third.headers),
        (r) => r.statusCode === 401,
      );
      assert.ok(ms < 1_000, `session revocation seen on B after ${Math.round(ms)} ms`);
      tc.diagnostic(`session revocation seen on B after ${Math.round(ms)} ms`);
      assert.equal((await me(b, other.headers)).statusCode, 200, 'the other session is untouched');
    });

    it("an operator's SQL revocation (no service involved) reaches every process within one second", async (tc) => {
      const t = await createTenant(a);
      const users = (on: TestApp) => () => send(on, { method: 'GET', url: '/api/v1/users', headers: t.headers });
      await warm(a, users(a));
      await warm(b, users(b));
      const started = performance.now();
      await a.container.database.db
        .updateTable('api_keys')
        .set({ revoked_at: Date.now() })
        .where('tenant_id', '=', t.tenantId)
        .execute();
      for (const on of [a, b]) {
        const ms = await within(started, users(on), (r) => r.statusCode === 401);
        assert.ok(ms < 1_000, `refused after ${Math.round(ms)} ms`);
        tc.diagnostic(`refused after ${Math.round(ms)} ms`);
      }
    });

    it("never lets one tenant's credential resolve another's, however the cache is warmed", async () => {
      const tenants: TestTenant[] = [await createTenant(a), await createTenant(a), await createTenant(a)];
      const tokens = await Promise.all(tenants.map((t) => loginAs(a, t, 'owner')));
      const calls: { on: TestApp; headers: Record<string, string>; tenant: TestTenant; via: string }[] = [];
      for (const on of [a, b]) {
        tenants.forEach((t, i) => {
          calls.push({ on, headers: t.headers, tenant: t, via: 'api_key' });
          calls.push({ on, headers: { 'x-api-key': t.testApiKey }, tenant: t, via: 'sandbox' });
          calls.push({ on, headers: tokens[i]!.headers, tenant: t, via: 'user_token' });
        });
      }
      // Interleaved and concurrent, cold and then warm.
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          calls.map((c) =>
            send(c.on, {
              method: 'GET',
              url: c.via === 'sandbox' ? '/sandbox/api/v1/auth/me' : '/api/v1/auth/me',
              headers: c.headers,
            }),
          ),
        );
        answers.forEach((res, i) => {
          const c = calls[i]!;
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().tenant.subdomain, c.tenant.subdomain, `${c.via} resolved another tenant`);
        });
      }
      assert.ok(cacheStats(b).hits > 0);
      // A cached token of tenant 0 sent with tenant 1's subdomain is still refused, on both processes.
      for (const on of [a, b]) {
        const crossed = await me(on, { ...tokens[0]!.headers, 'x-tenant-subdomain': tenants[1]!.subdomain });
        assertError(crossed, 401, 'unauthorized');
        // And tenant 0's key never reaches tenant 1's users.
        assertError(
          await send(on, { method: 'GET', url: `/api/v1/users/${tenants[1]!.ownerId}`, headers: tenants[0]!.headers }),
          404,
          'not_found',
        );
      }
    });

    if (dialect === 'postgres') {
      it('bypasses the cache while its listening connection is down, and starts afresh when it is back', async () => {
        const t = await createTenant(a);
        const users = (on: TestApp) => () => send(on, { method: 'GET', url: '/api/v1/users', headers: t.headers });
        await warm(a, users(a));
        await warm(b, users(b));
        // Cut every identity listener of this database (A's and B's), as a network failure or a server restart would.
        const cut = await sql<{ pid: number }>`select pg_terminate_backend(pid) as pid from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and query in ('LISTEN "identity_changes"', 'SELECT 1')`.execute(
          a.container.database.db,
        );
        assert.ok(cut.rows.length >= 2, `terminated ${cut.rows.length} listeners`);
        const until = Date.now() + 2_000;
        while (cacheStats(a).live || cacheStats(b).live) {
          assert.ok(Date.now() < until, 'the feeds did not notice the lost connection');
          await new Promise((r) => setTimeout(r, 5));
        }
        // While no change can be heard, every request is looked up: a revocation is seen at once.
        const hits = cacheStats(b).hits;
        await a.container.database.db
          .updateTable('api_keys')
          .set({ revoked_at: Date.now() })
          .where('tenant_id', '=', t.tenantId)
          .execute();
        if (!cacheStats(b).live) assertError(await users(b)(), 401, 'invalid_api_key');
        // Back again (reconnect with backoff), with an empty cache: still refused.
        await untilLive(a);
        await untilLive(b);
        assertError(await users(a)(), 401, 'invalid_api_key');
        assertError(await users(b)(), 401, 'invalid_api_key');
        assert.ok(cacheStats(b).hits >= hits);
      });
    }
  });
}
