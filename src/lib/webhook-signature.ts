import { createHmac, timingSafeEqual } from 'node:crypto';

// Webhook signatures (spec "Events", docs/api-decisions.md §8): `X-Service-Signature: sha256=<hex>`, the hex
// HMAC-SHA256 of the raw request body keyed with the webhook secret. The signature covers the body
// only; X-Service-Timestamp is sent alongside but is not signed (see docs/webhooks.md).

/** Header names every delivery carries. */
export const WEBHOOK_HEADERS = {
  signature: 'X-Service-Signature',
  eventId: 'X-Service-Event-Id',
  event: 'X-Service-Event',
  delivery: 'X-Service-Delivery',
  timestamp: 'X-Service-Timestamp',
} as const;

const PREFIX = 'sha256=';
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

/** Default replay window for the timestamp check, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `sha256=<hex HMAC-SHA256 of rawBody keyed with secret>`, the X-Service-Signature value. */
export function signWebhookBody(secret: string, rawBody: string | Uint8Array): string {
  return PREFIX + createHmac('sha256', secret).update(rawBody).digest('hex');
}

export interface VerifyWebhookOptions {
  secret: string;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** The X-Service-Signature value. */
  signatureHeader: string | string[] | undefined | null;
  /** The X-Service-Timestamp value (unix seconds). When given, it must lie within the window. */
  timestampHeader?: string | string[] | undefined | null;
  /** Window for the timestamp, default 300 s. Setting it makes the timestamp required. */
  toleranceSeconds?: number;
  /** Current time in epoch milliseconds, default Date.now(). */
  now?: number;
}

/**
 * True when the signature matches the raw body (compared in constant time) and, when a timestamp
 * is given or a tolerance set, the timestamp lies within the window.
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): boolean {
  const header = single(options.signatureHeader)?.trim();
  if (!header?.toLowerCase().startsWith(PREFIX)) return false;
  const given = header.slice(PREFIX.length);
  if (!HEX_DIGEST.test(given)) return false;
  const expected = createHmac('sha256', options.secret).update(options.rawBody).digest();
  // Both are 32 bytes here, as timingSafeEqual requires.
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) return false;

  const timestamp = single(options.timestampHeader);
  if (timestamp === undefined && options.toleranceSeconds === undefined) return true;
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp.trim())) return false;
  const skew = Math.abs((options.now ?? Date.now()) / 1000 - Number(timestamp.trim()));
  return skew <= (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
}

// node:http gives repeated headers as arrays; a signature header sent twice is suspect, take neither.
function single(value: string | string[] | undefined | null): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined;
  return value ?? undefined;
}
