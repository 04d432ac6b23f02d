import assert from 'node:assert/strict';
import type { TestApp } from '../../support/app.ts';
import type { TestTenant } from '../../support/fixtures.ts';

export const URLS = {
  success_url: 'https://app.example.com/billing/done',
  cancel_url: 'https://app.example.com/billing',
};

export async function status(t: TestApp, headers: Record<string, string>, prefix = '/api/v1') {
  const res = await t.app.inject({ url: `${prefix}/subscription/status`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

export function checkout(t: TestApp, headers: Record<string, string>, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/v1/subscription/checkout', headers, payload });
}

export function complete(t: TestApp, checkoutId: string) {
  return t.admin({ method: 'POST', url: `/api/v1/admin/checkouts/${checkoutId}/complete` });
}

export async function history(t: TestApp, tenant: TestTenant) {
  const res = await t.app.inject({ url: '/api/v1/subscription/history', headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** An active workflow (a Team feature), for downgrades to pause. */
export async function activeWorkflow(t: TestApp, headers: Record<string, string>): Promise<string> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/dag/workflows',
    headers,
    payload: { name: 'Paid flow', nodes: [{ id: 'a', type: 'condition', config: { expression: 'true' } }] },
  });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id ?? created.json().workflow_id;
  const activated = await t.app.inject({
    method: 'PUT',
    url: `/api/v1/dag/workflows/${id}`,
    headers,
    payload: { status: 'active' },
  });
  assert.equal(activated.statusCode, 200, activated.body);
  return id;
}

export async function setTier(t: TestApp, tenant: TestTenant, tier: string) {
  const res = await t.admin({ method: 'PATCH', url: `/api/v1/admin/tenants/${tenant.tenantId}`, payload: { tier } });
  assert.equal(res.statusCode, 200, res.body);
}
