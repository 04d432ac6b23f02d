import { createHmac, timingSafeEqual } from 'node:crypto';

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type HeadersLike = Record<string, string | string[] | undefined> | { get(name: string): string | null };

/** Options of verifyWebhookSignature (the same as the service's own checker, docs/webhooks.md). */
export interface VerifyWebhookOptions {
  /** The webhook's secret (`whsec_...`), shown once when it was created. */
  secret: string;
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** The delivery's headers: `req.headers` in node:http, Express or Fastify, or a fetch `Headers`. */
  headers: HeadersLike;
  /** Accepted distance of `webhook-timestamp` from the clock, default 300 s. */
  toleranceSeconds?: number;
  /** Current time in epoch milliseconds, default Date.now(). */
  now?: number;
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * True when a delivery is authentic and fresh: its Standard Webhooks signature (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64>` over `id.timestamp.body`) is valid with a
 * timestamp inside the window, and its `X-Service-Signature` (`sha256=<hex>` over the body) matches.
 * Compared in constant time. Throws a TypeError when the options are not these.
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): boolean {
  if (!options || typeof options.secret !== 'string' || !options.headers) {
    throw new TypeError(
      'verifyWebhookSignature({ secret, rawBody, headers }): pass the secret, the raw body and the request headers',
    );
  }
  const read = (name: string) => headerOf(options.headers, name);
  const id = read('webhook-id');
  const timestamp = read('webhook-timestamp')?.trim();
  const signatures = read('webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs((options.now ?? Date.now()) / 1000 - Number(timestamp)) > (options.toleranceSeconds ?? 300))
    return false;
  // Keyed as the Standard Webhooks libraries key it: whsec_<base64> decoded, any other secret as text.
  const encoded = options.secret.startsWith('whsec_') ? options.secret.slice(6) : null;
  const key =
    encoded && STANDARD_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.from(options.secret, 'utf8');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(options.rawBody).digest();
  const standard = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    const given = version === 'v1' && value ? Buffer.from(value, 'base64') : Buffer.alloc(0);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  const match = /^sha256=([0-9a-f]{64})$/i.exec(read('x-service-signature')?.trim() ?? '');
  if (!standard || !match?.[1]) return false;
  return timingSafeEqual(
    Buffer.from(match[1], 'hex'),
    createHmac('sha256', options.secret).update(options.rawBody).digest(),
  );
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
