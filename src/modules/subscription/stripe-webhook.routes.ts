import type Stripe from 'stripe';
import { Type } from 'typebox';
import { standardErrors } from '../../http/common-schemas.ts';
import type { App } from '../../http/fastify-types.ts';
import type { Config } from '../../config/config.ts';
import { errors } from '../../lib/errors.ts';
import type { BillingLedger } from './billing-ledger.ts';
import { readStripeEvent } from './stripe-events.ts';

/**
 * `POST /billing/stripe/webhook`: public (Stripe's signature is the credential), not rate limited.
 * The body is read raw in this route's own scope, because the signature covers the exact bytes.
 */
export async function stripeWebhookRoutes(
  app: App,
  s: { stripe: Stripe; ledger: BillingLedger; settings: Config['billing']['stripe'] },
): Promise<void> {
  await app.register(async (scoped) => {
    scoped.removeContentTypeParser('application/json');
    scoped.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scoped.post(
      '/billing/stripe/webhook',
      {
        config: { auth: 'public', rateLimit: false },
        schema: {
          tags: ['subscription'],
          summary: "Stripe's webhook",
          description:
            'Verified with the `Stripe-Signature` header and `STRIPE_WEBHOOK_SECRET` (400 and nothing changes otherwise). Acts on `checkout.session.completed`, `customer.subscription.created|updated|deleted`, `invoice.paid`, `invoice.payment_failed`; a replayed event id changes nothing; an event older than the last applied does not move the status back.',
          response: { 200: Type.Object({ received: Type.Boolean(), result: Type.String() }), ...standardErrors },
        },
      },
      async (request) => {
        const signature = request.headers['stripe-signature'];
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        let event: Stripe.Event;
        try {
          event = s.stripe.webhooks.constructEvent(
            raw,
            typeof signature === 'string' ? signature : '',
            s.settings.webhookSecret ?? '',
          );
        } catch (error) {
          throw errors.field('stripe-signature', `invalid Stripe signature: ${(error as Error).message}`);
        }
        const update = readStripeEvent(event, s.settings.prices);
        const result = await s.ledger.applyProviderEvent(
          'stripe',
          { id: event.id, type: event.type, createdAt: event.created * 1000 },
          update,
        );
        return { received: true, result: update.kind === 'ignored' ? 'ignored' : result };
      },
    );
  });
}
