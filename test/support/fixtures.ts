import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import { testSeam } from './test-seams.ts';

let counter = 0;

export interface TestTenant {
  tenantId: string;
  subdomain: string;
  ownerId: string;
  ownerEmail: string;
  ownerPassword: string;
  apiKey: string;
  testApiKey: string;
  /** Headers authenticating with the live API key. */
  headers: Record<string, string>;
}

/** Creates a tenant through the admin API, as a customer would get one. */
export async function createTenant(t: TestApp, options: { tier?: string; name?: string } = {}): Promise<TestTenant> {
  counter += 1;
  const subdomain = `t${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
  const ownerEmail = `owner-${subdomain}@example.com`;
  const ownerPassword = 'correct horse battery staple';
  const res = await t.admin({
    method: 'POST',
    url: '/api/v1/admin/tenants',
    payload: {
      name: options.name ?? `Tenant ${counter}`,
      subdomain,
      tier: options.tier ?? 'team',
      owner: { email: ownerEmail, password: ownerPassword, name: 'Owner' },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json();
  return {
    tenantId: body.tenant.id,
    subdomain,
    ownerId: body.owner.id,
    ownerEmail,
    ownerPassword,
    apiKey: body.api_key,
    testApiKey: body.test_api_key,
    headers: { 'x-api-key': body.api_key },
  };
}

/** Asserts the contract's error body (§4) and returns it. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
export function assertError(res: { statusCode: number; json(): any; body: string }, status: number, error: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.error, error, res.body);
  assert.equal(body.code, error.toUpperCase());
  assert.equal(typeof body.message, 'string');
  return body;
}

export type TestRole = 'owner' | 'admin' | 'member' | 'viewer';

export interface LoggedInUser {
  userId: string;
  email: string;
  password: string;
  /** Headers for a user-token request: bearer token, tenant header and CSRF token (needed on POST/PUT/PATCH/DELETE). */
  headers: { authorization: string; 'x-tenant-subdomain': string; 'x-csrf-token': string };
  accessToken: string;
  refreshToken: string;
  csrfToken: string;
  sessionId: string;
}

export interface LoginAsOptions {
  /** Log in as this e-mail (created with the role if missing); default: one user per tenant and role. */
  email?: string;
  name?: string;
  /** Custom role names given on creation. */
  roles?: string[];
  password?: string;
}

/**
 * Signs in as a user of the tenant with the given role, creating the user first (POST /api/v1/users
 * with the tenant's API key) when needed; `owner` is the tenant's own owner unless an e-mail is given.
 */
export async function loginAs(
  t: TestApp,
  tenant: TestTenant,
  role: TestRole,
  options: LoginAsOptions = {},
): Promise<LoggedInUser> {
  const useOwner = role === 'owner' && !options.email;
  const email = useOwner ? tenant.ownerEmail : (options.email ?? `${role}-${tenant.subdomain}@example.com`);
  const password = useOwner ? tenant.ownerPassword : (options.password ?? 'a long test password');
  if (!useOwner) {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: {
        email,
        name: options.name ?? `${role} user`,
        role,
        password,
        ...(options.roles ? { roles: options.roles } : {}),
      },
    });
    // 409: created by an earlier call; an owner can only be made by an owner, so do it as the owner.
    if (created.statusCode === 403 && role === 'owner') {
      const owner = await loginAs(t, tenant, 'owner');
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: owner.headers,
        payload: {
          email,
          name: options.name ?? 'owner user',
          role,
          password,
          ...(options.roles ? { roles: options.roles } : {}),
        },
      });
      assert.ok(again.statusCode === 201 || again.statusCode === 409, again.body);
    } else {
      assert.ok(created.statusCode === 201 || created.statusCode === 409, created.body);
    }
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'x-tenant-subdomain': tenant.subdomain },
    payload: { email, password },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  return {
    userId: body.user.id,
    email,
    password,
    headers: {
      authorization: `Bearer ${body.access_token}`,
      'x-tenant-subdomain': tenant.subdomain,
      'x-csrf-token': body.csrf_token,
    },
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    csrfToken: body.csrf_token,
    sessionId: body.session_id,
  };
}

/** The newest message of the mail outbox sent to an address (password resets, invitations). */
export async function lastMailTo(t: TestApp, tenant: TestTenant, to: string) {
  const rows = await testSeam(t.container, 'mailOutbox').listTo(t.container.database.db, tenant.tenantId, to);
  return rows[0] ?? null;
}
