import assert from 'node:assert/strict';
import { it } from 'node:test';
import { verifyWebhookSignature } from '../../packages/sdk/src/index.ts';
import { signWebhookBody } from '../../src/lib/webhook-signature.ts';

// The SDK verifies what the service's delivery runner signs (src/lib/webhook-signature.ts).
const secret = 'whsec_test_secret';
const body = JSON.stringify({ event: 'document.processed', data: { id: 'd1' } });

it('accepts the service\'s signature of the raw body', () => {
  assert.equal(verifyWebhookSignature({ secret, rawBody: body, signature: signWebhookBody(secret, body) }), true);
  assert.equal(verifyWebhookSignature({ secret, rawBody: Buffer.from(body), signature: signWebhookBody(secret, body) }), true);
});

it('refuses a changed body, another secret, a malformed header', () => {
  const signature = signWebhookBody(secret, body);
  assert.equal(verifyWebhookSignature({ secret, rawBody: `${body} `, signature }), false);
  assert.equal(verifyWebhookSignature({ secret: 'whsec_other', rawBody: body, signature }), false);
  assert.equal(verifyWebhookSignature({ secret, rawBody: body, signature: signature.slice(0, -2) }), false);
  assert.equal(verifyWebhookSignature({ secret, rawBody: body, signature: undefined }), false);
});

it('checks the timestamp window when a timestamp is given', () => {
  const signature = signWebhookBody(secret, body);
  const now = Math.floor(Date.now() / 1000);
  assert.equal(verifyWebhookSignature({ secret, rawBody: body, signature, timestamp: String(now) }), true);
  assert.equal(verifyWebhookSignature({ secret, rawBody: body, signature, timestamp: String(now - 3600) }), false);
  assert.equal(verifyWebhookSignature({ secret, rawBody: body, signature, toleranceSeconds: 60 }), false);
});
