import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { tokenFromMailBody } from '../../../../src/modules/identity/auth/password-tokens.ts';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, lastMailTo, loginAs } from '../../../support/fixtures.ts';

describeEachDialect('auth: login, tokens and sessions', (ctx) => {
  const inject = (opts: InjectOptions) => ctx().app.inject(opts);

  it('logs in with e-mail, password and tenant header, answering the token set', async () => {
    const t = await createTenant(ctx());
    const res = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: t.ownerEmail.toUpperCase(), password: t.ownerPassword },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 900);
    assert.equal(body.refresh_expires_in, 30 * 86_400);
    assert.match(body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.match(body.refresh_token, /^rt_[\w-]{43}$/);
    assert.equal(typeof body.csrf_token, 'string');
    assert.equal(body.user.id, t.ownerId);
    assert.equal(body.user.role, 'owner');
    assert.equal(body.tenant.subdomain, t.subdomain);
    const header = JSON.parse(Buffer.from(body.access_token.split('.')[0], 'base64url').toString());
    assert.equal(header.alg, 'HS256');
    assert.match(header.kid, /^key_/);
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString());
    assert.equal(claims.sub, t.ownerId);
    assert.equal(claims.tid, t.tenantId);
    assert.equal(claims.role, 'owner');
    assert.equal(claims.exp - claims.iat, 900);
  });

  it('gives no hint whether the e-mail exists', async () => {
    const t = await createTenant(ctx());
    const attempts = [
      { sub: t.subdomain, email: t.ownerEmail, password: 'wrong password' },
      { sub: t.subdomain, email: 'nobody@example.com', password: 'wrong password' },
      { sub: 'no-such-tenant', email: t.ownerEmail, password: t.ownerPassword },
    ];
    const bodies = [];
    for (const a of attempts) {
      const res = await inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': a.sub },
        payload: { email: a.email, password: a.password },
      });
      const body = assertError(res, 401, 'unauthorized');
      bodies.push(body);
    }
    assert.deepEqual(bodies[0], bodies[1]);
    assert.deepEqual(bodies[1], bodies[2]);
  });

  it('refuses login without the tenant header (400) and for a suspended tenant (403)', async () => {
    const t = await createTenant(ctx());
    assertError(
      await inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: t.ownerEmail, password: t.ownerPassword },
      }),
      400,
      'validation_error',
    );
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { status: 'suspended' },
    });
    const res = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: t.ownerEmail, password: t.ownerPassword },
    });
    assertError(res, 403, 'tenant_suspended');
  });

  it('refuses the user token of a tenant suspended after login', async () => {
    const t = await createTenant(ctx());
    const owner = await loginAs(ctx(), t, 'owner');
    assert.equal((await inject({ method: 'GET', url: '/api/v1/auth/me', headers: owner.headers })).statusCode, 200);
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      payload: { status: 'suspended' },
    });
    assertError(
      await inject({ method: 'GET', url: '/api/v1/auth/me', headers: owner.headers }),
      403,
      'tenant_suspended',
    );
  });

  it('registers a Free tenant with its owner, answering like login', async () => {
    const sub = `reg-${Date.now().toString(36)}`;
    const res = await inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: {
        tenant_name: 'Self Service',
        subdomain: sub,
        email: 'founder@example.com',
        password: 'founder password',
        name: 'Founder',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.user.role, 'owner');
    assert.equal(body.tenant.tier, 'free');
    const me = await inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${body.access_token}`, 'x-tenant-subdomain': sub },
    });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().user.email, 'founder@example.com');
    assert.equal(me.json().tenant.subdomain, sub);
    const again = await inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: {
        tenant_name: 'Again',
        subdomain: sub,
        email: 'x@example.com',
        password: 'founder password',
        name: 'X',
      },
    });
    assertError(again, 409, 'conflict');
  });

  it('a registration retried with its Idempotency-Key replays the first answer; another body with the key is 422', async () => {
    const sub = `idem-${Date.now().toString(36)}`;
    const payload = {
      tenant_name: 'Retry Co',
      subdomain: sub,
      email: 'retry@example.com',
      password: 'retry password 1',
      name: 'Retry',
    };
    const key = `reg-${sub}`;
    const first = await inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      headers: { 'idempotency-key': key },
      payload,
    });
    assert.equal(first.statusCode, 201, first.body);
    const second = await inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      headers: { 'idempotency-key': key },
      payload,
    });
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.json().tenant.id, first.json().tenant.id);
    const other = await inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      headers: { 'idempotency-key': key },
      payload: { ...payload, name: 'Someone else' },
    });
    assertError(other, 422, 'idempotency_key_reused');
    // Without the key a retry is a new registration, refused because the subdomain is taken.
    assertError(await inject({ method: 'POST', url: '/api/v1/auth/register', payload }), 409, 'conflict');
  });

  it('rotates refresh tokens; a spent token revokes the whole session family', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'member');
    const first = await inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: u.refreshToken },
    });
    assert.equal(first.statusCode, 200, first.body);
    const pair = first.json();
    assert.notEqual(pair.refresh_token, u.refreshToken);
    assert.equal(pair.session_id, u.sessionId);
    const headers = { authorization: `Bearer ${pair.access_token}`, 'x-tenant-subdomain': t.subdomain };
    assert.equal((await inject({ method: 'GET', url: '/api/v1/auth/me', headers })).statusCode, 200);

    // The spent token again: refused, and the session (with the newer tokens) is revoked.
    assertError(
      await inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: u.refreshToken } }),
      401,
      'unauthorized',
    );
    assertError(
      await inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: pair.refresh_token } }),
      401,
      'unauthorized',
    );
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers }), 401, 'unauthorized');
    assertError(
      await inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: 'rt_unknown' } }),
      401,
      'unauthorized',
    );
  });

  it('logout revokes the session at once: its access and refresh tokens stop working', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'admin');
    const other = await loginAs(ctx(), t, 'admin');
    const res = await inject({ method: 'POST', url: '/api/v1/auth/logout', headers: u.headers });
    assert.equal(res.statusCode, 200, res.body);
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers: u.headers }), 401, 'unauthorized');
    assertError(
      await inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: u.refreshToken } }),
      401,
      'unauthorized',
    );
    // Another session of the same user is untouched.
    assert.equal((await inject({ method: 'GET', url: '/api/v1/auth/me', headers: other.headers })).statusCode, 200);
  });

  it('lists the active sessions of the caller and revokes one', async () => {
    const t = await createTenant(ctx());
    const a = await loginAs(ctx(), t, 'member');
    const b = await loginAs(ctx(), t, 'member');
    const list = await inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: a.headers });
    assert.equal(list.statusCode, 200, list.body);
    const body = list.json();
    assert.equal(body.total, 2);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'page', 'page_size', 'total']);
    const current = body.data.find((s: { current: boolean }) => s.current);
    assert.equal(current.id, a.sessionId);
    const del = await inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${b.sessionId}`, headers: a.headers });
    assert.equal(del.statusCode, 200, del.body);
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers: b.headers }), 401, 'unauthorized');
    // Someone else's session is not found.
    const c = await loginAs(ctx(), t, 'viewer');
    assertError(
      await inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${c.sessionId}`, headers: a.headers }),
      404,
      'not_found',
    );
    // Session endpoints need a user token.
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: t.headers }), 403, 'forbidden');
  });

  it('hands out fresh CSRF tokens bound to the session', async () => {
    const t = await createTenant(ctx());
    const a = await loginAs(ctx(), t, 'admin');
    const b = await loginAs(ctx(), t, 'admin');
    const res = await inject({ method: 'GET', url: '/api/v1/auth/csrf', headers: a.headers });
    assert.equal(res.statusCode, 200);
    const fresh = res.json().csrf_token;
    assert.notEqual(fresh, a.csrfToken);
    const ok = await inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: { ...a.headers, 'x-csrf-token': fresh },
      payload: { name: 'csrf ok' },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    // b's token does not work for a's session.
    const cross = await inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: { ...a.headers, 'x-csrf-token': b.csrfToken },
      payload: { name: 'x' },
    });
    assertError(cross, 403, 'csrf_token_invalid');
  });

  it('changing the password revokes the other sessions and keeps this one', async () => {
    const t = await createTenant(ctx());
    const a = await loginAs(ctx(), t, 'member', { email: 'pw-change@example.com' });
    const b = await loginAs(ctx(), t, 'member', { email: 'pw-change@example.com' });
    const wrong = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/change',
      headers: a.headers,
      payload: { current_password: 'not it', new_password: 'a brand new password' },
    });
    assertError(wrong, 400, 'validation_error');
    const res = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/change',
      headers: a.headers,
      payload: { current_password: a.password, new_password: 'a brand new password' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await inject({ method: 'GET', url: '/api/v1/auth/me', headers: a.headers })).statusCode, 200);
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers: b.headers }), 401, 'unauthorized');
    const oldLogin = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: 'pw-change@example.com', password: a.password },
    });
    assertError(oldLogin, 401, 'unauthorized');
    const newLogin = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: 'pw-change@example.com', password: 'a brand new password' },
    });
    assert.equal(newLogin.statusCode, 200);
  });

  it('forgot/reset: always 202, the token goes to the mail outbox, works once and signs out everywhere', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'member', { email: 'forgetful@example.com' });
    const unknown = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/forgot',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: 'nobody@example.com' },
    });
    assert.equal(unknown.statusCode, 202);
    const known = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/forgot',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: 'forgetful@example.com' },
    });
    assert.equal(known.statusCode, 202);
    assert.deepEqual(known.json(), unknown.json());
    const mail = await lastMailTo(ctx(), t, 'forgetful@example.com');
    assert.ok(mail, 'a message is in the outbox');
    assert.equal(mail.kind, 'password_reset');
    const token = tokenFromMailBody(mail.body);
    assert.ok(token);
    const rows = await ctx().container.database.db.selectFrom('password_reset_tokens').select('token_hash').execute();
    assert.ok(
      rows.every((r) => r.token_hash !== token),
      'stored only as a hash',
    );

    const reset = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/reset',
      payload: { token, new_password: 'reset password 123' },
    });
    assert.equal(reset.statusCode, 200, reset.body);
    assertError(await inject({ method: 'GET', url: '/api/v1/auth/me', headers: u.headers }), 401, 'unauthorized');
    const again = await inject({
      method: 'POST',
      url: '/api/v1/auth/password/reset',
      payload: { token, new_password: 'another password 1' },
    });
    assertError(again, 400, 'validation_error');
    const login = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': t.subdomain },
      payload: { email: 'forgetful@example.com', password: 'reset password 123' },
    });
    assert.equal(login.statusCode, 200);
  });

  it('me answers the user and tenant; with an API key the user is null', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'viewer');
    const me = (await inject({ method: 'GET', url: '/api/v1/auth/me', headers: u.headers })).json();
    assert.equal(me.user.id, u.userId);
    assert.equal(me.auth.via, 'user_token');
    assert.equal(me.tenant.id, t.tenantId);
    const viaKey = (await inject({ method: 'GET', url: '/api/v1/auth/me', headers: t.headers })).json();
    assert.equal(viaKey.user, null);
    assert.equal(viaKey.auth.via, 'api_key');
    assert.equal(viaKey.auth.role, 'admin');
  });

  it('refuses user tokens in the sandbox: only ak_test_ keys are accepted there (contract §5)', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'owner');
    const me = await inject({ method: 'GET', url: '/sandbox/api/v1/auth/me', headers: u.headers });
    const body = assertError(me, 401, 'unauthorized');
    assert.match(body.message, /ak_test_/);
    const write = await inject({
      method: 'POST',
      url: '/sandbox/api/v1/workspaces',
      headers: u.headers,
      payload: { name: 'from sandbox' },
    });
    assertError(write, 401, 'unauthorized');
    // The same token still works on the live API, and the test key in the sandbox.
    assert.equal((await inject({ method: 'GET', url: '/api/v1/auth/me', headers: u.headers })).statusCode, 200);
    assert.equal(
      (await inject({ method: 'GET', url: '/sandbox/api/v1/auth/me', headers: { 'x-api-key': t.testApiKey } }))
        .statusCode,
      200,
    );
  });
});
