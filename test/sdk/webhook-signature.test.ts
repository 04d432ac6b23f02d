import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhookSignature } from '../../packages/sdk/src/index.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant } from '../support/fixtures.ts';
import { httpsReceiverUnavailable, startHttpsReceiver } from '../support/https-receiver.ts';
import { createWebhook, header, uniquePath, waitForRequests } from '../modules/webhooks/helpers.ts';

// A real delivery, verified by a receiver library nobody here wrote (standardwebhooks), by the SDK
// and by the spec's X-Service-Signature scheme; a rewritten timestamp is refused.

const unavailable = httpsReceiverUnavailable();
if (unavailable) throw new Error(unavailable);
const receiver = await startHttpsReceiver();
after(() => receiver.close());

describeEachDialect(
  'Webhook deliveries verified by Standard Webhooks receivers and the SDK',
  (ctx) => {
    it('signs a delivery so that the standardwebhooks library and the SDK accept it', async () => {
      const tenant = await createTenant(ctx());
      const path = uniquePath('standard');
      const hook = await createWebhook(ctx(), tenant, `${receiver.url}${path}`, ['document.uploaded']);
      assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'a secret the libraries take as is');
      assert.equal(
        (await ctx().app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/test`, headers: tenant.headers }))
          .statusCode,
        202,
      );
      const [request] = await waitForRequests(receiver, path, 1);
      assert.ok(request);
      const raw = request.body.toString('utf8');
      assert.equal(header(request, 'webhook-id'), header(request, 'x-service-event-id'));
      assert.equal(header(request, 'webhook-timestamp'), header(request, 'x-service-timestamp'));
      assert.match(header(request, 'webhook-signature'), /^v1,[A-Za-z0-9+/]+=*$/);

      const payload = new Webhook(hook.secret).verify(raw, request.headers as Record<string, string>) as {
        type: string;
      };
      assert.equal(payload.type, 'webhook.test');
      assert.equal(
        verifyWebhookSignature({ secret: hook.secret, rawBody: request.body, headers: request.headers }),
        true,
      );

      // A replay with a fresh timestamp written over the old one is refused by both.
      const replayed = {
        ...request.headers,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 60),
        'x-service-timestamp': String(Math.floor(Date.now() / 1000) + 60),
      };
      assert.throws(() => new Webhook(hook.secret).verify(raw, replayed as unknown as Record<string, string>));
      assert.equal(verifyWebhookSignature({ secret: hook.secret, rawBody: request.body, headers: replayed }), false);
      assert.equal(
        verifyWebhookSignature({
          secret: 'whsec_c29tZW9uZSBlbHNlJ3Mgc2VjcmV0IGtleQ==',
          rawBody: request.body,
          headers: request.headers,
        }),
        false,
      );
    });

    it('keys a secret of the customer’s own (not whsec_<base64>) as text: the libraries’ raw format', async () => {
      const tenant = await createTenant(ctx());
      const path = uniquePath('raw-secret');
      const secret = 'my-own-signing-secret-2026';
      const hook = await createWebhook(ctx(), tenant, `${receiver.url}${path}`, ['document.uploaded'], { secret });
      await ctx().app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/test`, headers: tenant.headers });
      const [request] = await waitForRequests(receiver, path, 1);
      assert.ok(request);
      assert.ok(
        new Webhook(secret, { format: 'raw' }).verify(
          request.body.toString('utf8'),
          request.headers as Record<string, string>,
        ),
      );
      assert.equal(verifyWebhookSignature({ secret, rawBody: request.body, headers: request.headers }), true);
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OUTBOUND_EXTRA_CA_FILE: receiver.caFile } },
);
