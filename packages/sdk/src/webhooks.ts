import { createHmac, timingSafeEqual } from 'node:crypto';

/** Options of verifyWebhookSignature. */
export interface VerifyWebhookOptions {
  /** The webhook's secret (`whsec_...`), shown once when it was created. */
  secret: string;
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** The X-Service-Signature header: `sha256=<hex HMAC-SHA256 of the raw body>`. */
  signature: string | null | undefined;
  /** The X-Service-Timestamp header (Unix seconds); checked against `toleranceSeconds` when given. */
  timestamp?: string | null | undefined;
  /** Accepted clock difference for the timestamp, default 300 s. */
  toleranceSeconds?: number;
}

/** True when a delivery's signature matches its raw body (constant-time comparison) and its timestamp is recent. */
export function verifyWebhookSignature(options: VerifyWebhookOptions): boolean {
  const header = options.signature?.trim() ?? '';
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header);
  if (!match?.[1]) return false;
  const expected = createHmac('sha256', options.secret).update(options.rawBody).digest();
  if (!timingSafeEqual(Buffer.from(match[1], 'hex'), expected)) return false;
  if (options.timestamp === undefined || options.timestamp === null) return options.toleranceSeconds === undefined;
  if (!/^\d{1,12}$/.test(options.timestamp.trim())) return false;
  return Math.abs(Date.now() / 1000 - Number(options.timestamp)) <= (options.toleranceSeconds ?? 300);
}
