import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { SignJWT } from 'jose';
import { generateApiKey, hashApiKey, sameHash } from '../../src/modules/identity/api-keys/api-key-secrets.ts';
import { AUDIENCE, ISSUER } from '../../src/modules/identity/auth/tokens.ts';
import { ADMIN_KEY, describeEachDialect } from '../support/app.ts';
import { assertError, createTenant, loginAs } from '../support/fixtures.ts';
import { testSeam } from '../support/test-seams.ts';

function b64(obj: unknown): string {
  return Buffer.from(JSON.stringify(obj)).toString('base64url');
}

describeEachDialect('security: credentials', (ctx) => {
  const me = (headers: Record<string, string>) => ctx().app.inject({ method: 'GET', url: '/api/v1/auth/me', headers });

  it('refuses tampered, alg:none, wrong-key, unknown-kid and expired access tokens', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'member');
    const [h, p, s] = u.accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const sub = { 'x-tenant-subdomain': t.subdomain };

    // Tampered payload (role raised), original signature.
    const tampered = `${h}.${b64({ ...claims, role: 'owner' })}.${s}`;
    assertError(await me({ ...sub, authorization: `Bearer ${tampered}` }), 401, 'unauthorized');
    // Flipped signature bit.
    const sig = Buffer.from(s, 'base64url');
    sig[0] = sig[0]! ^ 1;
    assertError(
      await me({ ...sub, authorization: `Bearer ${h}.${p}.${sig.toString('base64url')}` }),
      401,
      'unauthorized',
    );
    // alg: none.
    const none = `${b64({ alg: 'none', typ: 'JWT', kid: header.kid })}.${p}.`;
    assertError(await me({ ...sub, authorization: `Bearer ${none}` }), 401, 'unauthorized');
    // Same kid, another key.
    const now = Math.floor(Date.now() / 1000);
    const forge = (key: Uint8Array, kid: string, extra: Record<string, unknown> = {}) =>
      new SignJWT({ tid: claims.tid, sid: claims.sid, role: 'owner', ...extra })
        .setProtectedHeader({ alg: 'HS256', kid })
        .setSubject(claims.sub)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(key);
    assertError(
      await me({ ...sub, authorization: `Bearer ${await forge(randomBytes(32), header.kid)}` }),
      401,
      'unauthorized',
    );
    assertError(
      await me({ ...sub, authorization: `Bearer ${await forge(randomBytes(32), 'key_unknown')}` }),
      401,
      'unauthorized',
    );
    // Signed with the real key but expired.
    const real = await testSeam(ctx().container, 'signingKeys').verificationKey(header.kid);
    assert.ok(real);
    const expired = await new SignJWT({ tid: claims.tid, sid: claims.sid, role: claims.role })
      .setProtectedHeader({ alg: 'HS256', kid: header.kid })
      .setSubject(claims.sub)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now - 2000)
      .setExpirationTime(now - 1000)
      .sign(real.key);
    assertError(await me({ ...sub, authorization: `Bearer ${expired}` }), 401, 'unauthorized');
    // The real key and fresh claims do work (the checks above are not vacuous).
    assert.equal(
      (await me({ ...sub, authorization: `Bearer ${await forge(real.key, header.kid, { role: claims.role })}` }))
        .statusCode,
      200,
    );
    // Garbage.
    assertError(await me({ ...sub, authorization: 'Bearer not.a.jwt' }), 401, 'unauthorized');
  });

  it('refuses a token of tenant A sent with the subdomain of tenant B, or without a subdomain', async () => {
    const a = await createTenant(ctx());
    const b = await createTenant(ctx());
    const u = await loginAs(ctx(), a, 'owner');
    assertError(await me({ ...u.headers, 'x-tenant-subdomain': b.subdomain }), 401, 'unauthorized');
    assertError(await me({ authorization: u.headers.authorization }), 401, 'unauthorized');
    assertError(await me({ ...u.headers, 'x-tenant-subdomain': 'no-such-tenant' }), 401, 'unauthorized');
  });

  it('a rotated signing key keeps verifying earlier tokens while new ones use the new kid', async () => {
    const t = await createTenant(ctx());
    const before = await loginAs(ctx(), t, 'member');
    await testSeam(ctx().container, 'signingKeys').rotate();
    const after = await loginAs(ctx(), t, 'member');
    const kid = (tok: string) => JSON.parse(Buffer.from(tok.split('.')[0]!, 'base64url').toString()).kid;
    assert.notEqual(kid(before.accessToken), kid(after.accessToken));
    assert.equal((await me(before.headers)).statusCode, 200);
    assert.equal((await me(after.headers)).statusCode, 200);
  });

  it('requires X-CSRF-Token on state-changing user-token requests, never on API-key requests', async () => {
    const t = await createTenant(ctx());
    const u = await loginAs(ctx(), t, 'admin');
    const { 'x-csrf-token': _csrf, ...noCsrf } = u.headers;
    for (const [method, url, payload] of [
      ['POST', '/api/v1/workspaces', { name: 'w' }],
      ['PATCH', `/api/v1/users/${u.userId}`, { name: 'n' }],
      ['DELETE', `/api/v1/users/${u.userId}`, undefined],
      ['PUT', '/api/v1/workspaces/some-id', { name: 'x' }],
      ['POST', '/api/v1/auth/logout', undefined],
    ] as const) {
      assertError(await ctx().app.inject({ method, url, headers: noCsrf, payload }), 403, 'csrf_token_invalid');
      assertError(
        await ctx().app.inject({ method, url, headers: { ...noCsrf, 'x-csrf-token': 'forged.value' }, payload }),
        403,
        'csrf_token_invalid',
      );
    }
    // GET needs none; API keys need none.
    assert.equal((await ctx().app.inject({ method: 'GET', url: '/api/v1/users', headers: noCsrf })).statusCode, 200);
    const viaKey = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: t.headers,
      payload: { name: 'by key' },
    });
    assert.equal(viaKey.statusCode, 201, viaKey.body);
    // The CSRF secret is shared through the database, not per process memory.
    const secret = await ctx()
      .container.database.db.selectFrom('server_secrets')
      .select('name')
      .where('name', '=', 'csrf')
      .executeTakeFirst();
    assert.ok(secret);
  });

  it('never takes the admin key as a tenant credential nor a tenant key as the admin key', async () => {
    const t = await createTenant(ctx());
    assertError(
      await ctx().app.inject({
        method: 'GET',
        url: '/api/v1/users',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      }),
      401,
      'unauthorized',
    );
    assertError(
      await ctx().app.inject({ method: 'GET', url: '/api/v1/users', headers: { 'x-api-key': ADMIN_KEY } }),
      401,
      'invalid_api_key',
    );
    assertError(
      await ctx().app.inject({ method: 'GET', url: '/api/v1/admin/tenants', headers: t.headers }),
      401,
      'unauthorized',
    );
    assertError(
      await ctx().app.inject({
        method: 'GET',
        url: '/api/v1/admin/tenants',
        headers: { authorization: `Bearer ${t.apiKey}` },
      }),
      401,
      'unauthorized',
    );
    const u = await loginAs(ctx(), t, 'owner');
    assertError(
      await ctx().app.inject({ method: 'GET', url: '/api/v1/admin/tenants', headers: u.headers }),
      401,
      'unauthorized',
    );
  });

  it('compares API keys in constant time and refuses a key that differs in one character', async () => {
    const t = await createTenant(ctx());
    const k = generateApiKey('live');
    assert.equal(sameHash(k.hash, hashApiKey(k.key)), true);
    assert.equal(sameHash(k.hash, hashApiKey(`${k.key.slice(0, -1)}${k.key.endsWith('A') ? 'B' : 'A'}`)), false);
    assert.equal(sameHash(k.hash, 'abcd'), false, 'different lengths are unequal, not an exception');
    // Through HTTP: the last character changed (same lookup prefix, so the hash comparison decides).
    const last = t.apiKey.at(-1)!;
    const wrong = `${t.apiKey.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
    assertError(
      await ctx().app.inject({ method: 'GET', url: '/api/v1/users', headers: { 'x-api-key': wrong } }),
      401,
      'invalid_api_key',
    );
    assert.equal((await ctx().app.inject({ method: 'GET', url: '/api/v1/users', headers: t.headers })).statusCode, 200);
    // The comparison itself is crypto.timingSafeEqual (the code path this test relies on).
    const source = await import('node:fs').then((fs) =>
      fs.readFileSync(new URL('../../src/modules/identity/api-keys/api-key-secrets.ts', import.meta.url), 'utf8'),
    );
    assert.match(source, /timingSafeEqual\(x, y\)/);
  });
});
