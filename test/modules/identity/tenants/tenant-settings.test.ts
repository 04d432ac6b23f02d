import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../../support/fixtures.ts';

/* GET/PATCH /api/v1/tenant/settings (docs/api-decisions.md §2): the first setting is ai_review_threshold. */
describeEachDialect('tenant settings', (ctx) => {
  let tenant: TestTenant;
  const get = (headers: Record<string, string>) =>
    ctx().app.inject({ method: 'GET', url: '/api/v1/tenant/settings', headers });
  const patch = (headers: Record<string, string>, payload: unknown) =>
    ctx().app.inject({ method: 'PATCH', url: '/api/v1/tenant/settings', headers, payload: payload as object });

  before(async () => {
    tenant = await createTenant(ctx());
  });

  it('has no review threshold until one is set, for every role to read', async () => {
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
      const user = await loginAs(ctx(), tenant, role);
      const res = await get(user.headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ai_review_threshold: null });
    }
  });

  it('owners, admins and API keys set and clear the threshold', async () => {
    const owner = await loginAs(ctx(), tenant, 'owner');
    const admin = await loginAs(ctx(), tenant, 'admin');
    assert.deepEqual((await patch(owner.headers, { ai_review_threshold: 0.7 })).json(), { ai_review_threshold: 0.7 });
    assert.deepEqual((await get(tenant.headers)).json(), { ai_review_threshold: 0.7 });
    assert.deepEqual((await patch(admin.headers, { ai_review_threshold: 0.55 })).json(), { ai_review_threshold: 0.55 });
    assert.deepEqual((await patch(tenant.headers, { ai_review_threshold: null })).json(), {
      ai_review_threshold: null,
    });
    assert.deepEqual((await get(owner.headers)).json(), { ai_review_threshold: null });
  });

  it('members and viewers may not change settings, and nothing changes', async () => {
    for (const role of ['member', 'viewer'] as const) {
      const user = await loginAs(ctx(), tenant, role);
      assertError(await patch(user.headers, { ai_review_threshold: 0.9 }), 403, 'forbidden');
    }
    assert.deepEqual((await get(tenant.headers)).json(), { ai_review_threshold: null });
  });

  it('refuses a threshold outside 0..1, unknown settings and an empty change', async () => {
    assertError(await patch(tenant.headers, { ai_review_threshold: 1.5 }), 400, 'validation_error');
    assertError(await patch(tenant.headers, { ai_review_threshold: -0.1 }), 400, 'validation_error');
    assertError(await patch(tenant.headers, { ai_review_threshold: 'high' }), 400, 'validation_error');
    assertError(await patch(tenant.headers, { review: 0.5 }), 400, 'validation_error');
    assertError(await patch(tenant.headers, {}), 400, 'validation_error');
    assert.deepEqual((await get(tenant.headers)).json(), { ai_review_threshold: null });
  });

  it('a threshold needs the task inbox: below the Team tier it is 403 tier_limit_exceeded', async () => {
    const free = await createTenant(ctx(), { tier: 'free' });
    const body = assertError(await patch(free.headers, { ai_review_threshold: 0.6 }), 403, 'tier_limit_exceeded');
    assert.equal(body.details.required_tier, 'team');
    assert.deepEqual((await patch(free.headers, { ai_review_threshold: null })).json(), { ai_review_threshold: null });
  });

  it("a tenant's settings are its own", async () => {
    await patch(tenant.headers, { ai_review_threshold: 0.8 });
    const other = await createTenant(ctx());
    assert.deepEqual((await get(other.headers)).json(), { ai_review_threshold: null });
    const sandbox = await ctx().app.inject({
      method: 'GET',
      url: '/sandbox/api/v1/tenant/settings',
      headers: { 'x-api-key': tenant.testApiKey },
    });
    assert.equal(sandbox.statusCode, 200, sandbox.body);
    assert.deepEqual(sandbox.json(), { ai_review_threshold: null }, 'the sandbox twin has settings of its own');
  });
});
