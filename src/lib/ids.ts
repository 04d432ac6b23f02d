import { randomBytes } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): time-ordered, so new rows land at the end of primary-key indexes
 * on both SQLite and PostgreSQL instead of scattering across them.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A prefixed random identifier such as `evt_…`, for ids the spec shows with a prefix. */
export function prefixedId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id has the shape of our ids (anything else cannot exist, so it is a 404). */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
