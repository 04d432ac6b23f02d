import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import Stripe from 'stripe';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { checkout, history, status, URLS } from './helpers.ts';
import { startLocalStripe } from './stripe-server.ts';

const SECRET = 'whsec_local_test_secret';
const stripeServer = await startLocalStripe();
after(() => stripeServer.close());
const signer = new Stripe('sk_test_local');

let seq = 0;
const seconds = () => Math.floor(Date.now() / 1000);

/** A Stripe event as Stripe sends it: JSON body and Stripe-Signature over it. */
function signed(
  type: string,
  object: Record<string, unknown>,
  created = seconds(),
  id = `evt_${++seq}_${Math.random().toString(36).slice(2)}`,
) {
  const payload = JSON.stringify({
    id,
    object: 'event',
    type,
    created,
    livemode: false,
    api_version: '2026-10-28.endive',
    data: { object },
  });
  return { id, payload, signature: signer.webhooks.generateTestHeaderString({ payload, secret: SECRET }) };
}

function deliver(t: TestApp, event: { payload: string; signature?: string }) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/billing/stripe/webhook',
    headers: {
      'content-type': 'application/json',
      ...(event.signature ? { 'stripe-signature': event.signature } : {}),
    },
    payload: event.payload,
  });
}

function subscriptionObject(tenant: TestTenant, subId: string, fields: Record<string, unknown>) {
  const periodEnd = seconds() + 30 * 86_400;
  return {
    id: subId,
    object: 'subscription',
    customer: 'cus_1',
    status: 'active',
    cancel_at_period_end: false,
    cancel_at: null,
    metadata: { tenant_id: tenant.tenantId, tier: 'team' },
    items: { data: [{ price: { id: 'price_team' }, current_period_start: seconds(), current_period_end: periodEnd }] },
    ...fields,
  };
}

describeEachDialect(
  'subscription through Stripe',
  (ctx) => {
    /** A Free tenant taken to Team by a paid Stripe checkout; answers its subscription id. */
    async function paidTeam(t: TestApp, tenant: TestTenant): Promise<string> {
      const started = (await checkout(t, tenant.headers, { tier: 'team', ...URLS })).json();
      const subId = `sub_${++seq}`;
      const event = signed('checkout.session.completed', {
        id: `cs_${seq}`,
        object: 'checkout.session',
        customer: 'cus_1',
        subscription: subId,
        metadata: { checkout_id: started.checkout_id, tenant_id: tenant.tenantId, tier: 'team' },
      });
      const res = await deliver(t, event);
      assert.equal(res.statusCode, 200, res.body);
      return subId;
    }

    it('opens Checkout Sessions through the SDK, with the tier price and metadata', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'free' });
      const res = await checkout(t, tenant.headers, { tier: 'team', ...URLS });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      const call = stripeServer.calls.findLast((c) => c.path === '/v1/checkout/sessions')!;
      assert.equal(call.form['mode'], 'subscription');
      assert.equal(call.form['line_items[0][price]'], 'price_team');
      assert.equal(call.form['metadata[checkout_id]'], body.checkout_id);
      assert.equal(call.form['subscription_data[metadata][tenant_id]'], tenant.tenantId);
      assert.equal(call.form['success_url'], URLS.success_url);
      assert.equal(call.idempotencyKey, `checkout-${body.checkout_id}`);
      assert.match(body.checkout_url, /^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
      assertError(await checkout(t, tenant.headers, { tier: 'starter', ...URLS }), 400, 'validation_error');
      // A new checkout expires the open one, at Stripe too.
      await checkout(t, tenant.headers, { tier: 'pro', ...URLS });
      assert.ok(stripeServer.calls.some((c) => c.path.endsWith('/expire')));
      // Stripe's checkouts are completed by Stripe, not the administrator.
      assertError(
        await t.admin({ method: 'POST', url: `/api/v1/admin/checkouts/${body.checkout_id}/complete` }),
        409,
        'conflict',
      );
    });

    it('refuses bad or missing signatures and changes nothing', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'free' });
      const started = (await checkout(t, tenant.headers, { tier: 'team', ...URLS })).json();
      const event = signed('checkout.session.completed', {
        id: 'cs_x',
        object: 'checkout.session',
        metadata: { checkout_id: started.checkout_id },
      });
      assertError(await deliver(t, { payload: event.payload }), 400, 'validation_error');
      assertError(
        await deliver(t, { payload: event.payload, signature: event.signature.replace(/v1=[0-9a-f]{4}/, 'v1=0000') }),
        400,
        'validation_error',
      );
      const forged = new Stripe('sk_test_local').webhooks.generateTestHeaderString({
        payload: event.payload,
        secret: 'whsec_someone_else',
      });
      assertError(await deliver(t, { payload: event.payload, signature: forged }), 400, 'validation_error');
      assert.equal((await status(t, tenant.headers)).tier, 'free');
      assert.equal((await history(t, tenant)).total, 0);
    });

    it('completes the checkout from the signed webhook at once; a replay changes nothing', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'free' });
      assertError(
        await t.app.inject({ url: '/api/v1/dag/workflows', headers: tenant.headers }),
        403,
        'tier_limit_exceeded',
      );
      const started = (await checkout(t, tenant.headers, { tier: 'team', ...URLS })).json();
      const event = signed('checkout.session.completed', {
        id: 'cs_y',
        object: 'checkout.session',
        customer: 'cus_9',
        subscription: 'sub_replay',
        metadata: { checkout_id: started.checkout_id },
      });
      const first = await deliver(t, event);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().result, 'applied');
      assert.equal((await t.app.inject({ url: '/api/v1/dag/workflows', headers: tenant.headers })).statusCode, 200);
      const replay = await deliver(t, event);
      assert.equal(replay.statusCode, 200);
      assert.equal(replay.json().result, 'replay');
      const changes = await history(t, tenant);
      assert.equal(changes.total, 1);
      assert.equal(changes.data[0].reason, 'checkout');
    });

    it('moves status with renewals and payment failures, and ignores events older than the last applied', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'free' });
      const subId = await paidTeam(t, tenant);
      const invoice = (type: string, created: number) =>
        signed(
          type,
          {
            id: `in_${++seq}`,
            object: 'invoice',
            parent: { type: 'subscription_details', subscription_details: { subscription: subId } },
          },
          created,
        );
      const base = seconds();
      assert.equal((await deliver(t, invoice('invoice.payment_failed', base + 20))).statusCode, 200);
      assert.equal((await status(t, tenant.headers)).status, 'past_due');
      // An older success arriving late does not undo the newer failure.
      await deliver(t, invoice('invoice.paid', base + 10));
      assert.equal((await status(t, tenant.headers)).status, 'past_due');
      await deliver(t, invoice('invoice.paid', base + 30));
      assert.equal((await status(t, tenant.headers)).status, 'active');
      assert.equal((await status(t, tenant.headers)).tier, 'team');
    });

    it('cancels at period end: status cancelled at once, the tier back to Free when it ends', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'free' });
      const subId = await paidTeam(t, tenant);
      const periodEnd = seconds() + 3600;
      await deliver(
        t,
        signed(
          'customer.subscription.updated',
          subscriptionObject(tenant, subId, {
            cancel_at_period_end: true,
            items: { data: [{ price: { id: 'price_team' }, current_period_end: periodEnd }] },
          }),
        ),
      );
      const cancelled = await status(t, tenant.headers);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal(cancelled.tier, 'team');
      assert.equal(cancelled.cancel_at, new Date(periodEnd * 1000).toISOString());
      await deliver(
        t,
        signed('customer.subscription.deleted', subscriptionObject(tenant, subId, { status: 'canceled' })),
      );
      const ended = await status(t, tenant.headers);
      assert.equal(ended.tier, 'free');
      assert.equal(ended.status, 'cancelled');
      assertError(
        await t.app.inject({ url: '/api/v1/dag/workflows', headers: tenant.headers }),
        403,
        'tier_limit_exceeded',
      );
      const changes = await history(t, tenant);
      assert.equal(changes.data[0].reason, 'provider_event');
      assert.equal(changes.data[0].changed_by, 'stripe');
      assert.equal(changes.data[0].to_tier, 'free');
    });

    it('ends a cancelled subscription whose period passed even without Stripe’s end event', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'free' });
      const subId = await paidTeam(t, tenant);
      await deliver(
        t,
        signed('customer.subscription.updated', subscriptionObject(tenant, subId, { cancel_at: seconds() - 1 })),
      );
      assert.equal((await status(t, tenant.headers)).tier, 'team');
      const sweep = t.container.jobDefinitions().find((d) => d.kind === 'subscription.end_cancelled')!;
      await sweep.handler({
        id: 'j',
        kind: sweep.kind,
        payload: { tick: Math.floor(Date.now() / 60_000) },
        attempt: 1,
        maxAttempts: 3,
        tenantId: null,
        priority: 0,
        signal: new AbortController().signal,
        completeIn: async () => {},
      });
      assert.equal((await status(t, tenant.headers)).tier, 'free');
    });
  },
  {
    env: {
      BILLING_PROVIDER: 'stripe',
      STRIPE_API_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_BASE: stripeServer.url,
      STRIPE_PRICE_PRO: 'price_pro',
      STRIPE_PRICE_TEAM: 'price_team',
    },
  },
);
