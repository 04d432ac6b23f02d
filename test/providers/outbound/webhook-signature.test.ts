import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import * as sdk from '../../../packages/sdk/src/index.ts';
import {
  signStandardWebhook,
  signWebhookBody,
  standardWebhookKey,
  verifyBodySignature,
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
} from '../../../src/lib/webhook-signature.ts';
import { createOutboundHttp, type OutboundHttp } from '../../../src/providers/outbound/outbound-http.ts';
import { type HttpsReceiver, httpsReceiverUnavailable, startHttpsReceiver } from '../../support/https-receiver.ts';

const secret = 'whsec_test';
const body = '{"id":"evt_1","type":"webhook.test"}';
// `printf '%s' "$body" | openssl dgst -sha256 -hmac whsec_test`
const KNOWN = 'sha256=c0568b9af801f02f7f9106c2c38402201b37e7270b27dfe57d4c3e1af314b661';
const NOW = 1_790_000_000_000;
const SECONDS = NOW / 1000;

/** Both signatures of a delivery, as the service sends them. */
function signed(key: string, raw: string, id = 'evt_1', seconds = SECONDS): Record<string, string> {
  return {
    'x-service-signature': signWebhookBody(key, raw),
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signStandardWebhook(key, id, seconds, raw),
  };
}

// The service's checker and the SDK's take the same options and give the same verdicts.
const VERIFIERS = { service: verifyWebhookSignature, sdk: sdk.verifyWebhookSignature };

describe('webhook signatures', () => {
  it('signs the raw body as sha256=<hex HMAC-SHA256>, matching an independent implementation', () => {
    assert.equal(signWebhookBody(secret, body), KNOWN);
    assert.equal(signWebhookBody(secret, Buffer.from(body)), KNOWN);
    assert.equal(verifyBodySignature(secret, body, KNOWN), true);
    assert.equal(verifyBodySignature(secret, body, KNOWN.toUpperCase().replace('SHA256', 'sha256')), true);
    for (const header of [undefined, '', KNOWN.slice(7), `sha1=${KNOWN.slice(7)}`, `sha256=${'z'.repeat(64)}`]) {
      assert.equal(verifyBodySignature(secret, body, header), false, String(header));
    }
  });

  it('keys the Standard Webhooks signature as its libraries do: whsec_<base64> decoded, anything else as text', () => {
    const key = Buffer.alloc(24, 7);
    const whsec = `whsec_${key.toString('base64')}`;
    assert.deepEqual(standardWebhookKey(whsec), key);
    assert.deepEqual(standardWebhookKey('my own secret of 16+'), Buffer.from('my own secret of 16+'));
    assert.deepEqual(standardWebhookKey('whsec_not-base64_url'), Buffer.from('whsec_not-base64_url'));
    const expected = createHmac('sha256', key).update(`msg_1.${SECONDS}.${body}`).digest('base64');
    assert.equal(signStandardWebhook(whsec, 'msg_1', SECONDS, body), `v1,${expected}`);
    // The reference library accepts what we sign, in both key forms.
    const headers = signed(whsec, body, 'msg_1');
    assert.deepEqual(
      new Webhook(whsec).verify(body, {
        ...headers,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': signStandardWebhook(whsec, 'msg_1', Math.floor(Date.now() / 1000), body),
      }),
      JSON.parse(body),
    );
    const raw = 'my own secret of 16+';
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(
      new Webhook(raw, { format: 'raw' }).verify(body, {
        'webhook-id': 'm',
        'webhook-timestamp': String(now),
        'webhook-signature': signStandardWebhook(raw, 'm', now, body),
      }),
      JSON.parse(body),
    );
  });

  for (const [name, verify] of Object.entries(VERIFIERS)) {
    describe(`verifyWebhookSignature (${name})`, () => {
      const base = { secret, rawBody: body, now: NOW };

      it('accepts a delivery whose two signatures and timestamp are right, from any header shape', () => {
        assert.equal(verify({ ...base, headers: signed(secret, body) }), true);
        assert.equal(verify({ ...base, rawBody: Buffer.from(body), headers: new Headers(signed(secret, body)) }), true);
        const upper = Object.fromEntries(Object.entries(signed(secret, body)).map(([k, v]) => [k, [v]]));
        assert.equal(verify({ ...base, headers: upper }), true);
        assert.equal(verify({ ...base, headers: signed(secret, body, 'evt_1', SECONDS - 299) }), true);
      });

      it('refuses a tampered body, another secret, a rewritten timestamp or id, a stale or missing signature', () => {
        assert.equal(
          verify({ ...base, rawBody: body.replace('evt_1', 'evt_2'), headers: signed(secret, body) }),
          false,
        );
        assert.equal(verify({ ...base, secret: 'whsec_other', headers: signed(secret, body) }), false);
        assert.equal(
          verify({ ...base, headers: { ...signed(secret, body), 'webhook-timestamp': String(SECONDS + 5) } }),
          false,
        );
        assert.equal(verify({ ...base, headers: { ...signed(secret, body), 'webhook-id': 'evt_2' } }), false);
        assert.equal(verify({ ...base, headers: signed(secret, body, 'evt_1', SECONDS - 301) }), false);
        assert.equal(
          verify({ ...base, toleranceSeconds: 60, headers: signed(secret, body, 'evt_1', SECONDS - 61) }),
          false,
        );
        const { 'webhook-signature': _s, ...withoutStandard } = signed(secret, body);
        assert.equal(verify({ ...base, headers: withoutStandard }), false);
        const { 'x-service-signature': _x, ...withoutBody } = signed(secret, body);
        assert.equal(verify({ ...base, headers: withoutBody }), false);
        assert.equal(
          verify({ ...base, headers: { ...signed(secret, body), 'x-service-signature': [KNOWN, KNOWN] } }),
          false,
        );
      });

      it('throws for options it does not know instead of answering false', () => {
        const old = { secret, rawBody: body, signatureHeader: KNOWN, timestampHeader: String(SECONDS) };
        assert.throws(() => verify(old as never), TypeError);
      });
    });
  }
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
    const payload = JSON.stringify({
      id: 'evt_9',
      type: 'document.processed',
      timestamp: '2026-11-21T10:00:00.000Z',
      data: { document_id: 'doc_1', status: 'processed', ai_summary: 'Zoë’s — naïve café', ai_tags: [] },
    });
    const sentAt = Math.floor(Date.now() / 1000);
    await client.request({
      url: `${receiver.url}/hook`,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...signed(secret, payload, 'evt_9', sentAt),
        [WEBHOOK_HEADERS.eventId]: 'evt_9',
      },
      body: payload,
    });
    const seen = receiver.requests.at(-1)!;
    assert.equal(verifyWebhookSignature({ secret, rawBody: seen.body, headers: seen.headers }), true);
    assert.equal(verifyWebhookSignature({ secret, rawBody: seen.body.subarray(1), headers: seen.headers }), false);
  });
});
