import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

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
export function assertError(res: { statusCode: number; json(): any; body: string }, status: number, error: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.error, error, res.body);
  assert.equal(body.code, error.toUpperCase());
  assert.equal(typeof body.message, 'string');
  return body;
}
