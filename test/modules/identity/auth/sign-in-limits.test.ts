import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { clientNetwork } from '../../../../src/lib/client-network.ts';
import { tokenFromMailBody } from '../../../../src/modules/identity/auth/password-tokens.ts';
import { describeEachDialect, type TestApp } from '../../../support/app.ts';
import { assertError, createTenant, lastMailTo, loginAs, type TestTenant } from '../../../support/fixtures.ts';

/** A clock the tests move forward: locks and windows end without waiting. */
const clock = { t: Math.floor(Date.now() / 60_000) * 60_000 + 1_000, now: () => clock.t };

/** Each test signs in from addresses of its own, so one test's failures never lock another's client. */
function login(t: TestApp, tenant: TestTenant, email: string, password: string, from: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'x-tenant-subdomain': tenant.subdomain },
    payload: { email, password },
    remoteAddress: from,
  });
}

async function failLogins(t: TestApp, tenant: TestTenant, email: string, times: number, from: string) {
  for (let i = 0; i < times; i++)
    assertError(await login(t, tenant, email, `wrong guess ${i}`, from), 401, 'unauthorized');
}

describe('client networks (per-client limits)', () => {
  it('counts IPv4 addresses as they are and IPv6 addresses by their /64', () => {
    assert.equal(clientNetwork('203.0.113.7'), '203.0.113.7');
    assert.equal(clientNetwork('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientNetwork('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(clientNetwork('2001:0db8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64');
    assert.equal(clientNetwork('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientNetwork('::1'), '0:0:0:0::/64');
  });
});

describeEachDialect(
  'sign-in limits per account and per client (issue 26)',
  (ctx) => {
    it('locks an account after 10 failures: 429 with Retry-After for every attempt, right password or not, on Enterprise too', async () => {
      const t = await createTenant(ctx(), { tier: 'enterprise' });
      await failLogins(ctx(), t, t.ownerEmail, 10, '10.10.0.1');
      const locked = await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.10.0.1');
      const body = assertError(locked, 429, 'rate_limit_exceeded');
      assert.equal(locked.headers['retry-after'], '900');
      assert.equal(body.details.scope, 'sign_in_account');
      assert.equal(body.details.limit, 10);
      assert.equal(body.details.remaining, 0);
      assert.equal(body.details.reset_at, new Date(clock.t + 900_000).toISOString());
      // The account is the normalised e-mail: another case does not make a new one.
      assertError(
        await login(ctx(), t, t.ownerEmail.toUpperCase(), t.ownerPassword, '10.10.0.2'),
        429,
        'rate_limit_exceeded',
      );
      // An e-mail nobody has is locked the same way (a lock says nothing about who exists).
      await failLogins(ctx(), t, 'nobody@example.com', 10, '10.20.0.1');
      assertError(await login(ctx(), t, 'nobody@example.com', 'x', '10.20.0.1'), 429, 'rate_limit_exceeded');
    });

    it('lets another account of the tenant sign in during the lock, from the same client, on Free; the tenant budget is untouched', async () => {
      const t = await createTenant(ctx(), { tier: 'free' });
      const member = await loginAs(ctx(), t, 'member');
      await failLogins(ctx(), t, t.ownerEmail, 10, '10.11.0.1');
      assertError(await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.11.0.1'), 429, 'rate_limit_exceeded');
      const other = await login(ctx(), t, member.email, member.password, '10.11.0.1');
      assert.equal(other.statusCode, 200, other.body);
      // The tenant's Authentication budget (10 a minute on Free) was not spent by anyone's sign-in.
      const keys = await ctx().app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: t.headers });
      assert.equal(keys.statusCode, 200, keys.body);
      assert.equal(keys.headers['x-ratelimit-remaining'], '9');
    });

    it('ends the lock after the window, and makes the next one twice as long', async () => {
      const t = await createTenant(ctx(), { tier: 'team' });
      await failLogins(ctx(), t, t.ownerEmail, 10, '10.12.0.1');
      clock.t += 600_000;
      const later = await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.12.0.2');
      assertError(later, 429, 'rate_limit_exceeded');
      assert.equal(later.headers['retry-after'], '300');
      clock.t += 300_000;
      await failLogins(ctx(), t, t.ownerEmail, 10, '10.12.0.3');
      const again = await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.12.0.4');
      assertError(again, 429, 'rate_limit_exceeded');
      assert.equal(again.headers['retry-after'], '1800');
      clock.t += 1_800_000;
      assert.equal((await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.12.0.4')).statusCode, 200);
    });

    it('forgets an account’s failures when it signs in', async () => {
      const t = await createTenant(ctx(), { tier: 'team' });
      await failLogins(ctx(), t, t.ownerEmail, 9, '10.13.0.1');
      assert.equal((await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.13.0.1')).statusCode, 200);
      await failLogins(ctx(), t, t.ownerEmail, 9, '10.13.0.2');
      assert.equal((await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.13.0.2')).statusCode, 200);
    });

    it('locks a client address after its failures over many accounts; other addresses are not affected', async () => {
      const a = await createTenant(ctx(), { tier: 'team' });
      const b = await createTenant(ctx(), { tier: 'team' });
      for (let i = 0; i < 15; i++)
        assertError(
          await login(ctx(), i % 2 ? a : b, `user${i}@example.com`, 'guess', '198.51.100.7'),
          401,
          'unauthorized',
        );
      const locked = await login(ctx(), a, a.ownerEmail, a.ownerPassword, '198.51.100.7');
      const body = assertError(locked, 429, 'rate_limit_exceeded');
      assert.equal(body.details.scope, 'sign_in_client');
      assert.equal(body.details.limit, 15);
      assert.equal(locked.headers['retry-after'], '900');
      assert.equal((await login(ctx(), a, a.ownerEmail, a.ownerPassword, '198.51.100.8')).statusCode, 200);
      // One IPv6 host holds a /64: its addresses are one client.
      for (let i = 0; i < 15; i++)
        assertError(
          await login(ctx(), b, `v6-${i}@example.com`, 'guess', `2001:db8:7:7::${i + 1}`),
          401,
          'unauthorized',
        );
      assertError(
        await login(ctx(), b, b.ownerEmail, b.ownerPassword, '2001:db8:7:7::ffff'),
        429,
        'rate_limit_exceeded',
      );
      assert.equal((await login(ctx(), b, b.ownerEmail, b.ownerPassword, '2001:db8:7:8::1')).statusCode, 200);
    });

    it('counts invalid refresh tokens and reset tokens against the client', async () => {
      const t = await createTenant(ctx(), { tier: 'team' });
      const refresh = (from: string, token = 'rt_not-a-token') =>
        ctx().app.inject({
          method: 'POST',
          url: '/api/v1/auth/refresh',
          payload: { refresh_token: token },
          remoteAddress: from,
        });
      for (let i = 0; i < 15; i++) assertError(await refresh('192.0.2.10'), 401, 'unauthorized');
      const user = await loginAs(ctx(), t, 'member');
      const locked = await refresh('192.0.2.10', user.refreshToken);
      assertError(locked, 429, 'rate_limit_exceeded');
      assert.ok(Number(locked.headers['retry-after']) > 0);
      assert.equal((await refresh('192.0.2.11', user.refreshToken)).statusCode, 200);

      const reset = (from: string) =>
        ctx().app.inject({
          method: 'POST',
          url: '/api/v1/auth/password/reset',
          payload: { token: 'prt_guess', new_password: 'a new password 1' },
          remoteAddress: from,
        });
      for (let i = 0; i < 15; i++) assertError(await reset('192.0.2.20'), 400, 'validation_error');
      assertError(await reset('192.0.2.20'), 429, 'rate_limit_exceeded');
      assertError(await reset('192.0.2.21'), 400, 'validation_error');
    });

    it('lifts an account’s lock when its password is reset', async () => {
      const t = await createTenant(ctx(), { tier: 'team' });
      await failLogins(ctx(), t, t.ownerEmail, 10, '10.14.0.1');
      assertError(await login(ctx(), t, t.ownerEmail, t.ownerPassword, '10.14.0.1'), 429, 'rate_limit_exceeded');
      // A locked user can still ask for a reset.
      const forgot = await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/auth/password/forgot',
        headers: { 'x-tenant-subdomain': t.subdomain },
        payload: { email: t.ownerEmail },
      });
      assert.equal(forgot.statusCode, 202);
      const token = tokenFromMailBody((await lastMailTo(ctx(), t, t.ownerEmail))!.body);
      const reset = await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/auth/password/reset',
        payload: { token, new_password: 'a brand new password' },
      });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal((await login(ctx(), t, t.ownerEmail, 'a brand new password', '10.14.0.1')).statusCode, 200);
    });

    it('counts a wrong current password on password change against the account, and shows it all in /metrics', async () => {
      const t = await createTenant(ctx(), { tier: 'team' });
      const user = await loginAs(ctx(), t, 'member');
      const change = (current: string) =>
        ctx().app.inject({
          method: 'POST',
          url: '/api/v1/auth/password/change',
          headers: user.headers,
          payload: { current_password: current, new_password: 'a changed password' },
          remoteAddress: '192.0.2.30',
        } satisfies InjectOptions);
      for (let i = 0; i < 10; i++) assertError(await change(`wrong ${i}`), 400, 'validation_error');
      assertError(await change(user.password), 429, 'rate_limit_exceeded');
      assertError(await login(ctx(), t, user.email, user.password, '10.15.0.1'), 429, 'rate_limit_exceeded');

      const metrics = (await ctx().app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /auth_credential_checks_total\{route="login",outcome="failure"\} [1-9]\d*/);
      assert.match(metrics, /auth_credential_checks_total\{route="login",outcome="refused"\} [1-9]\d*/);
      assert.match(metrics, /auth_credential_checks_total\{route="login",outcome="success"\} [1-9]\d*/);
      assert.match(metrics, /auth_credential_checks_total\{route="password_change",outcome="failure"\} 10\b/);
      assert.match(metrics, /auth_lockouts_total\{scope="account"\} [1-9]\d*/);
      assert.match(metrics, /auth_lockouts_total\{scope="client"\} [1-9]\d*/);
    });
  },
  { clock, env: { LOGIN_CLIENT_MAX_FAILURES: '15' } },
);
