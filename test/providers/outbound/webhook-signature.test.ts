import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  signWebhookBody,
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
} from '../../../src/lib/webhook-signature.ts';
import { createOutboundHttp, type OutboundHttp } from '../../../src/providers/outbound/outbound-http.ts';
import { type HttpsReceiver, httpsReceiverUnavailable, startHttpsReceiver } from '../../support/https-receiver.ts';

const secret = 'whsec_test';
const body = '{"id":"evt_1","type":"webhook.test"}';
// `printf '%s' "$body" | openssl dgst -sha256 -hmac whsec_test`
const KNOWN = 'sha256=c0568b9af801f02f7f9106c2c38402201b37e7270b27dfe57d4c3e1af314b661';

describe('webhook signatures', () => {
  it('signs the raw body as sha256=<hex HMAC-SHA256>, matching an independent implementation', () => {
    assert.equal(signWebhookBody(secret, body), KNOWN);
    assert.equal(signWebhookBody(secret, Buffer.from(body)), KNOWN);
  });

  it('round-trips', () => {
    const signatureHeader = signWebhookBody(secret, body);
    assert.equal(verifyWebhookSignature({ secret, rawBody: body, signatureHeader }), true);
    assert.equal(verifyWebhookSignature({ secret, rawBody: Buffer.from(body), signatureHeader }), true);
    assert.equal(verifyWebhookSignature({ secret, rawBody: body, signatureHeader: KNOWN.toUpperCase().replace('SHA256', 'sha256') }), true);
  });

  it('fails for a tampered body, a wrong secret or a re-serialised body', () => {
    const signatureHeader = signWebhookBody(secret, body);
    assert.equal(verifyWebhookSignature({ secret, rawBody: body.replace('evt_1', 'evt_2'), signatureHeader }), false);
    assert.equal(verifyWebhookSignature({ secret, rawBody: `${body} `, signatureHeader }), false);
    assert.equal(verifyWebhookSignature({ secret: 'whsec_other', rawBody: body, signatureHeader }), false);
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    assert.equal(verifyWebhookSignature({ secret, rawBody: reserialised, signatureHeader }), false);
  });

  it('fails for missing or malformed signature headers without throwing', () => {
    const hex = KNOWN.slice('sha256='.length);
    for (const signatureHeader of [undefined, null, '', hex, `sha1=${hex}`, `sha256=${hex.slice(2)}`, `sha256=${hex}00`, `sha256=${'z'.repeat(64)}`, [KNOWN, KNOWN], []]) {
      assert.equal(verifyWebhookSignature({ secret, rawBody: body, signatureHeader }), false, String(signatureHeader));
    }
    assert.equal(verifyWebhookSignature({ secret, rawBody: body, signatureHeader: [KNOWN] }), true);
  });

  describe('timestamp window', () => {
    const now = 1_790_000_000_000;
    const seconds = now / 1000;
    const base = { secret, rawBody: body, signatureHeader: KNOWN, now };

    it('accepts a timestamp inside the window, either side', () => {
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds) }), true);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds - 299) }), true);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds + 299) }), true);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds - 50), toleranceSeconds: 60 }), true);
    });

    it('refuses a stale, future, malformed or (when a window is set) missing timestamp', () => {
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds - 301) }), false);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds + 301) }), false);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: String(seconds - 61), toleranceSeconds: 60 }), false);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: 'yesterday' }), false);
      assert.equal(verifyWebhookSignature({ ...base, timestampHeader: `${seconds}.5` }), false);
      assert.equal(verifyWebhookSignature({ ...base, toleranceSeconds: 300 }), false);
    });

    it('never lets a good timestamp rescue a bad signature', () => {
      const wrong = { ...base, secret: 'whsec_other', timestampHeader: String(seconds) };
      assert.equal(verifyWebhookSignature(wrong), false);
    });
  });
});

describe('webhook signatures over the wire', { skip: httpsReceiverUnavailable() ?? false }, () => {
  let receiver: HttpsReceiver;
  let client: OutboundHttp;
  before(async () => {
    receiver = await startHttpsReceiver();
    client = createOutboundHttp({ allowPrivateNetwork: true, extraCa: [receiver.caPem] });
  });
  after(async () => {
    await client.close();
    await receiver.close();
  });

  it('a receiver verifies what the client sent, from the raw bytes and headers it got', async () => {
    const payload = JSON.stringify({ id: 'evt_9', type: 'document.processed', timestamp: '2026-11-21T10:00:00.000Z', data: { document_id: 'doc_1', status: 'processed', ai_summary: 'Zoë’s — naïve café', ai_tags: [] } });
    const sentAt = Math.floor(Date.now() / 1000);
    await client.request({
      url: `${receiver.url}/hook`,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        [WEBHOOK_HEADERS.signature]: signWebhookBody(secret, payload),
        [WEBHOOK_HEADERS.eventId]: 'evt_9',
        [WEBHOOK_HEADERS.event]: 'document.processed',
        [WEBHOOK_HEADERS.delivery]: 'dlv_1',
        [WEBHOOK_HEADERS.timestamp]: String(sentAt),
      },
      body: payload,
    });
    const seen = receiver.requests.at(-1)!;
    const verify = (rawBody: Buffer) =>
      verifyWebhookSignature({
        secret,
        rawBody,
        signatureHeader: seen.headers['x-service-signature'],
        timestampHeader: seen.headers['x-service-timestamp'],
        toleranceSeconds: 300,
      });
    assert.equal(verify(seen.body), true);
    assert.equal(verify(seen.body.subarray(1)), false);
  });
});
