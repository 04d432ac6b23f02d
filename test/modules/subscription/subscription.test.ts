import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { GB, TIER_LIMITS } from '../../../src/domain/tiers.ts';
import { upload } from '../documents/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import { activeWorkflow, checkout, complete, history, setTier, status, URLS } from './helpers.ts';

describeEachDialect('subscription status, manual checkout and tier changes', (ctx) => {
  // A small Starter quota, so tests can fill it (restored after).
  const starterQuota = TIER_LIMITS.starter.storageBytes;
  before(() => {
    (TIER_LIMITS.starter as { storageBytes: number | null }).storageBytes = 3500;
  });
  after(() => {
    (TIER_LIMITS.starter as { storageBytes: number | null }).storageBytes = starterQuota;
  });

  it("shows a Free tenant's tier, limits, usage and features", async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'free' });
    const body = await status(t, tenant.headers);
    const now = new Date();
    assert.equal(body.tier, 'free');
    assert.equal(body.status, 'active');
    assert.equal(
      body.current_period_start,
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    );
    assert.equal(
      body.current_period_end,
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    );
    assert.deepEqual(body.limits, { requests_per_minute: 15, storage_bytes: 1 * GB, ai_credits: 100, documents: null });
    assert.deepEqual(body.usage, { storage_bytes: 0, documents: 0, ai_credits_used: 0 });
    assert.deepEqual(body.features, {
      workflows: false,
      import_projects: false,
      enhanced_search: false,
      video_transcription: false,
    });
    const member = await loginAs(t, tenant, 'viewer');
    assert.equal((await status(t, member.headers)).tier, 'free', 'anyone of the tenant reads the status');
  });

  it('spells Enterprise unlimited values as null, and shows the sandbox its caps', async () => {
    const t = ctx();
    const enterprise = await createTenant(t, { tier: 'enterprise' });
    const body = await status(t, enterprise.headers);
    assert.deepEqual(body.limits, {
      requests_per_minute: null,
      storage_bytes: null,
      ai_credits: null,
      documents: null,
    });
    assert.deepEqual(body.features, {
      workflows: true,
      import_projects: true,
      enhanced_search: true,
      video_transcription: true,
    });
    const pro = await createTenant(t, { tier: 'pro' });
    const sandbox = await status(t, { 'x-api-key': pro.testApiKey }, '/sandbox/api/v1');
    assert.equal(sandbox.limits.requests_per_minute, 60);
    assert.equal(sandbox.limits.documents, 100);
  });

  it('shows the usage enforcement counts: uploads until the quota answers 403, and AI credits spent', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'starter' });
    const file = Buffer.alloc(1000, 'a');
    let accepted = 0;
    for (;;) {
      const res = await upload(t, tenant.headers, { filename: `f${accepted}.txt`, content: file });
      if (res.statusCode === 403) {
        assertError(res, 403, 'tier_limit_exceeded');
        break;
      }
      assert.equal(res.statusCode, 201, res.body);
      accepted += 1;
    }
    assert.equal(accepted, 3);
    const body = await status(t, tenant.headers);
    assert.equal(body.limits.storage_bytes, 3500);
    assert.deepEqual(body.usage, { storage_bytes: 3000, documents: 3, ai_credits_used: 0 });
    assert.ok(
      body.usage.storage_bytes + file.length > body.limits.storage_bytes,
      'the next upload does not fit, as enforcement said',
    );

    const credits = t.container.modules.use('credits');
    const fresh = await t.container.modules.use('tenantDirectory').findById(tenant.tenantId);
    await t.container.database.db.transaction().execute((trx) => credits.charge(trx, fresh!, 'semantic_search'));
    assert.equal((await status(t, tenant.headers)).usage.ai_credits_used, 0.5);
  });

  it('lets only owners, admins and API keys start checkouts, and validates them', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'free' });
    for (const role of ['member', 'viewer'] as const) {
      const user = await loginAs(t, tenant, role);
      assertError(await checkout(t, user.headers, { tier: 'team', ...URLS }), 403, 'insufficient_permissions');
    }
    assertError(await checkout(t, tenant.headers, { tier: 'free', ...URLS }), 400, 'validation_error');
    assertError(await checkout(t, tenant.headers, { tier: 'platinum', ...URLS }), 400, 'validation_error');
    assertError(
      await checkout(t, tenant.headers, { tier: 'team', success_url: 'not a url', cancel_url: URLS.cancel_url }),
      400,
      'validation_error',
    );
    assertError(await checkout(t, tenant.headers, { tier: 'team' }), 400, 'validation_error');
    const starter = await createTenant(t, { tier: 'starter' });
    assertError(await checkout(t, starter.headers, { tier: 'starter', ...URLS }), 400, 'validation_error');
    assertError(
      await t.app.inject({
        method: 'POST',
        url: '/sandbox/api/v1/subscription/checkout',
        headers: { 'x-api-key': tenant.testApiKey },
        payload: { tier: 'team', ...URLS },
      }),
      403,
      'forbidden',
    );

    const owner = await loginAs(t, tenant, 'owner');
    const res = await checkout(t, owner.headers, { tier: 'team', ...URLS });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body.checkout_id, /^chk_/);
    assert.equal(body.tier, 'team');
    assert.equal(body.status, 'open');
    assert.ok(Date.parse(body.expires_at) > Date.now());
    assert.ok(body.checkout_url.endsWith(`/api/v1/subscription/checkouts/${body.checkout_id}`));
    const polled = await t.app.inject({
      url: `/api/v1/subscription/checkouts/${body.checkout_id}`,
      headers: tenant.headers,
    });
    assert.equal(polled.json().status, 'open');
  });

  it('takes a Free tenant to Team at once on completion: workflows open without a restart', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'free' });
    assertError(
      await t.app.inject({ url: '/api/v1/dag/workflows', headers: tenant.headers }),
      403,
      'tier_limit_exceeded',
    );
    const admin = await loginAs(t, tenant, 'admin');
    const started = (await checkout(t, admin.headers, { tier: 'team', ...URLS })).json();

    const done = await complete(t, started.checkout_id);
    assert.equal(done.statusCode, 200, done.body);
    const { completed_at, ...answer } = done.json() as Record<string, unknown>;
    assert.deepEqual(answer, {
      checkout_id: started.checkout_id,
      tenant_id: tenant.tenantId,
      tier: 'team',
      status: 'completed',
    });
    assert.ok(Date.parse(String(completed_at)) > 0);
    assert.equal((await t.app.inject({ url: '/api/v1/dag/workflows', headers: tenant.headers })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/api/v1/dag/workflows', headers: admin.headers })).statusCode, 200);
    const now = await status(t, tenant.headers);
    assert.equal(now.tier, 'team');
    assert.equal(now.limits.requests_per_minute, 300);

    const again = await complete(t, started.checkout_id);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), done.json(), 'completing twice answers the same');
    const changes = await history(t, tenant);
    assert.equal(changes.total, 1);
    assert.equal(changes.data[0].from_tier, 'free');
    assert.equal(changes.data[0].to_tier, 'team');
    assert.equal(changes.data[0].reason, 'checkout');
    assert.equal(changes.data[0].changed_by, admin.userId);
    assert.equal(changes.data[0].reference, started.checkout_id);
    const events = await t.container.database.db
      .selectFrom('events')
      .selectAll()
      .where('tenant_id', '=', tenant.tenantId)
      .where('name', '=', 'subscription.tier_changed')
      .execute();
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(events[0]!.data), {
      from_tier: 'free',
      to_tier: 'team',
      reason: 'checkout',
      changed_by: admin.userId,
      reference: started.checkout_id,
    });
  });

  it('keeps one open checkout per tenant: a new one expires the old', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'free' });
    const first = (await checkout(t, tenant.headers, { tier: 'pro', ...URLS })).json();
    const second = (await checkout(t, tenant.headers, { tier: 'team', ...URLS })).json();
    assertError(await complete(t, first.checkout_id), 409, 'conflict');
    const polled = await t.app.inject({
      url: `/api/v1/subscription/checkouts/${first.checkout_id}`,
      headers: tenant.headers,
    });
    assert.equal(polled.json().status, 'expired');
    assert.equal((await complete(t, second.checkout_id)).statusCode, 200);
    assert.equal((await status(t, tenant.headers)).tier, 'team');
  });

  it("completes checkouts by administrator only; another tenant's checkout is not theirs to see", async () => {
    const t = ctx();
    const a = await createTenant(t, { tier: 'free' });
    const b = await createTenant(t, { tier: 'free' });
    const started = (await checkout(t, a.headers, { tier: 'pro', ...URLS })).json();
    const url = `/api/v1/admin/checkouts/${started.checkout_id}/complete`;
    assertError(await t.app.inject({ method: 'POST', url, headers: b.headers }), 401, 'unauthorized');
    assertError(await t.app.inject({ method: 'POST', url, headers: a.headers }), 401, 'unauthorized');
    assertError(
      await t.app.inject({ url: `/api/v1/subscription/checkouts/${started.checkout_id}`, headers: b.headers }),
      404,
      'not_found',
    );
    assertError(await complete(t, 'chk_guessed'), 404, 'not_found');
    assert.equal((await status(t, a.headers)).tier, 'free');
    assert.equal((await status(t, b.headers)).tier, 'free');
    assert.equal((await history(t, b)).total, 0);
  });

  it('records administrator changes; a downgrade keeps data, refuses uploads past the quota, pauses workflows', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'team' });
    const workflowId = await activeWorkflow(t, tenant.headers);
    for (let i = 0; i < 4; i++)
      assert.equal(
        (await upload(t, tenant.headers, { filename: `d${i}.txt`, content: Buffer.alloc(1000, 'b') })).statusCode,
        201,
      );

    await setTier(t, tenant, 'starter');
    const body = await status(t, tenant.headers);
    assert.equal(body.tier, 'starter');
    assert.deepEqual(body.usage, { storage_bytes: 4000, documents: 4, ai_credits_used: 0 });
    assert.equal(body.limits.storage_bytes, 3500);
    const list = await t.app.inject({ url: '/api/v1/documents', headers: tenant.headers });
    assert.equal(list.json().total ?? list.json().pagination?.total, 4, 'the data is kept');
    assertError(
      await upload(t, tenant.headers, { filename: 'more.txt', content: Buffer.from('x') }),
      403,
      'tier_limit_exceeded',
    );
    assertError(
      await t.app.inject({ url: '/api/v1/dag/workflows', headers: tenant.headers }),
      403,
      'tier_limit_exceeded',
    );

    await setTier(t, tenant, 'team');
    const workflow = await t.app.inject({ url: `/api/v1/dag/workflows/${workflowId}`, headers: tenant.headers });
    assert.equal(workflow.statusCode, 200, workflow.body);
    assert.equal(workflow.json().status, 'paused', 'the downgrade paused it; the upgrade does not resume it');

    const changes = await history(t, tenant);
    assert.deepEqual(
      changes.data.map((c: { from_tier: string; to_tier: string; reason: string; changed_by: string }) => [
        c.from_tier,
        c.to_tier,
        c.reason,
        c.changed_by,
      ]),
      [
        ['starter', 'team', 'admin', 'administrator'],
        ['team', 'starter', 'admin', 'administrator'],
      ],
    );
    const member = await loginAs(t, tenant, 'member');
    assertError(
      await t.app.inject({ url: '/api/v1/subscription/history', headers: member.headers }),
      403,
      'insufficient_permissions',
    );
    const paged = await t.app.inject({
      url: '/api/v1/subscription/history?page=2&page_size=1',
      headers: tenant.headers,
    });
    assert.equal(paged.json().data[0].to_tier, 'starter');
  });
});
