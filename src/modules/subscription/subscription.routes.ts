import { Type } from 'typebox';
import { ErrorBody, PageQuery, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import type { Tier } from '../../domain/tiers.ts';
import type { BillingLedger } from './billing-ledger.ts';
import { presentCheckout, presentCompleted, presentStatus, presentTierChange } from './subscription.presenter.ts';
import {
  CheckoutBody,
  CheckoutParams,
  CheckoutView,
  CompletedCheckoutView,
  SubscriptionStatusView,
  TierChangeView,
} from './subscription.schemas.ts';
import type { SubscriptionService } from './subscription.service.ts';

const ADMINS = 'Owners, admins and API keys (403 `INSUFFICIENT_PERMISSIONS` otherwise).';

/** Contract §13 and docs/subscription.md. */
export function subscriptionRoutes(
  app: App,
  s: { subscription: SubscriptionService; ledger: BillingLedger; publicBaseUrl: string | null },
): void {
  const tags = ['subscription'];

  app.get(
    '/subscription/status',
    {
      schema: {
        tags,
        summary: 'Subscription status, limits and usage',
        description:
          "Limits and usage come from what enforcement reads: the tier as authentication resolved it, the storage counters of the quota, the AI credit ledger of the calendar month (UTC), which is the period shown. Unlimited values are `null`. Sandbox keys see the sandbox's caps.",
        response: { 200: SubscriptionStatusView, ...standardErrors },
      },
    },
    async (request) => presentStatus(await s.subscription.status(authOf(request))),
  );

  app.post(
    '/subscription/checkout',
    {
      schema: {
        tags,
        summary: 'Start a checkout for another tier',
        description: `${ADMINS} A tier equal to the current one, unknown, or not sold by the configured provider is 400. A new checkout expires the tenant's open one. With the \`manual\` provider an administrator completes it (\`POST /admin/checkouts/{checkout_id}/complete\`) and \`checkout_url\` reads its state; with \`stripe\` it is Stripe's hosted page. Not in the sandbox (403).`,
        body: CheckoutBody,
        response: { 201: CheckoutView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const origin = s.publicBaseUrl ?? `${request.protocol}://${request.host}`;
      const body = request.body as { tier: Tier; success_url: string; cancel_url: string };
      const checkout = await s.subscription.startCheckout(authOf(request), body, `${origin}/api/v1`);
      return reply.status(201).send(presentCheckout(checkout));
    },
  );

  app.get(
    '/subscription/checkouts/:checkout_id',
    {
      schema: {
        tags,
        summary: 'A checkout of the tenant',
        description: "Owners, admins and API keys (403 `INSUFFICIENT_PERMISSIONS`). Another tenant's checkout is 404.",
        params: CheckoutParams,
        response: { 200: CheckoutView, ...standardErrors },
      },
    },
    async (request) => presentCheckout(await s.subscription.checkout(authOf(request), request.params.checkout_id)),
  );

  app.get(
    '/subscription/history',
    {
      schema: {
        tags,
        summary: 'Tier changes, newest first',
        description: `Every tier change with who, when, from, to and why (\`checkout\`, \`admin\`, \`provider_event\`). Paged \`{data, total, page, page_size}\`. ${ADMINS}`,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: Type.Object({
            data: Type.Array(TierChangeView),
            total: Type.Integer(),
            page: Type.Integer(),
            page_size: Type.Integer(),
          }),
          ...standardErrors,
        },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await s.subscription.history(authOf(request), page);
      return { data: rows.map(presentTierChange), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/admin/checkouts/:checkout_id/complete',
    {
      config: { auth: 'admin', rateLimit: false },
      schema: {
        tags: ['admin'],
        summary: 'Complete a manual checkout',
        description:
          'The administrator confirms payment: the tier changes at once. Completing again answers the same result and changes nothing; an expired checkout, or one of another provider, is 409.',
        params: CheckoutParams,
        response: { 200: CompletedCheckoutView, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request) => presentCompleted(await s.ledger.completeManual(request.params.checkout_id)),
  );
}
