import { createHmac, timingSafeEqual } from 'node:crypto';

// Webhook signatures. Every delivery carries two (docs/webhooks.md, docs/api-decisions.md §15):
//
// - the spec's `X-Service-Signature: sha256=<hex>`, the hex HMAC-SHA256 of the raw body keyed with
//   the secret's text. It covers the body only.
// - Standard Webhooks (standardwebhooks.com): `webhook-id` (the event id), `webhook-timestamp` (unix
//   seconds of the attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
//   so a rewritten timestamp fails. Keyed as those libraries key it: a `whsec_<base64>` secret by
//   its base64 part decoded; any other secret by its UTF-8 bytes (their `format: "raw"`).
//
// This file depends only on node:crypto: receivers may copy it (docs/webhooks.md shows how).

/** Header names every delivery carries. */
export const WEBHOOK_HEADERS = {
  signature: 'X-Service-Signature',
  eventId: 'X-Service-Event-Id',
  event: 'X-Service-Event',
  delivery: 'X-Service-Delivery',
  timestamp: 'X-Service-Timestamp',
} as const;

/** The Standard Webhooks headers. */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

const PREFIX = 'sha256=';
const HEX_DIGEST = /^[0-9a-f]{64}$/i;
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Default replay window for the timestamp, in seconds (the Standard Webhooks libraries use 5 minutes too). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `sha256=<hex HMAC-SHA256 of rawBody keyed with secret>`, the X-Service-Signature value. */
export function signWebhookBody(secret: string, rawBody: string | Uint8Array): string {
  return PREFIX + createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** The Standard Webhooks key of a secret: the decoded base64 of `whsec_<base64>`, else the secret's UTF-8 bytes. */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
  return encoded && STANDARD_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.from(secret, 'utf8');
}

/** The `webhook-signature` value: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signStandardWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  rawBody: string | Uint8Array,
): string {
  const mac = createHmac('sha256', standardWebhookKey(secret))
    .update(`${id}.${timestampSeconds}.`)
    .update(rawBody)
    .digest('base64');
  return `v1,${mac}`;
}

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type HeadersLike = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** The webhook's secret, as the create answer showed it. */
  secret: string;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** The delivery's headers: `req.headers` in node:http, Express or Fastify, or a fetch `Headers`. */
  headers: HeadersLike;
  /** Accepted distance of `webhook-timestamp` from the clock, default 300 s. */
  toleranceSeconds?: number;
  /** Current time in epoch milliseconds, default Date.now(). */
  now?: number;
}

/**
 * True when a delivery is authentic and fresh: its Standard Webhooks signature covers its id,
 * timestamp and raw body and the timestamp lies within the window, and its X-Service-Signature
 * matches the raw body. Both are compared in constant time. Deliveries of this service carry both.
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): boolean {
  if (!options || typeof options.secret !== 'string' || !options.headers) {
    throw new TypeError(
      'verifyWebhookSignature({ secret, rawBody, headers }): pass the secret, the raw body and the request headers',
    );
  }
  const read = (name: string) => headerOf(options.headers, name);
  return (
    verifyStandardSignature(options.secret, options.rawBody, {
      id: read(STANDARD_WEBHOOK_HEADERS.id),
      timestamp: read(STANDARD_WEBHOOK_HEADERS.timestamp),
      signature: read(STANDARD_WEBHOOK_HEADERS.signature),
      toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
      now: options.now ?? Date.now(),
    }) && verifyBodySignature(options.secret, options.rawBody, read(WEBHOOK_HEADERS.signature))
  );
}

/** The spec's check alone: `sha256=<hex>` of the raw body (what workflow webhook triggers receive). */
export function verifyBodySignature(
  secret: string,
  rawBody: string | Uint8Array,
  signatureHeader: string | undefined,
): boolean {
  const header = signatureHeader?.trim();
  if (!header?.toLowerCase().startsWith(PREFIX)) return false;
  const given = header.slice(PREFIX.length);
  if (!HEX_DIGEST.test(given)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  // Both are 32 bytes here, as timingSafeEqual requires.
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

function verifyStandardSignature(
  secret: string,
  rawBody: string | Uint8Array,
  h: { id?: string; timestamp?: string; signature?: string; toleranceSeconds: number; now: number },
): boolean {
  if (!h.id || !h.timestamp || !h.signature || !/^\d{1,12}$/.test(h.timestamp.trim())) return false;
  const seconds = Number(h.timestamp.trim());
  if (Math.abs(h.now / 1000 - seconds) > h.toleranceSeconds) return false;
  const expected = Buffer.from(signStandardWebhook(secret, h.id, seconds, rawBody).slice('v1,'.length), 'base64');
  // Several space-separated signatures may be sent (while a secret rotates): one valid v1 is enough.
  return h.signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// A header sent twice is suspect: take neither.
function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = name in record ? name : Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined;
  return value;
}
