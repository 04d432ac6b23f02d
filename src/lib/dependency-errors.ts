/**
 * Whether an unexpected error means a dependency (the database, the blob store) could not be
 * reached or is overloaded for a moment, rather than a fault of this service. The error handler
 * answers those 503 `service_unavailable` with Retry-After instead of 500 (docs/api.md §3).
 * Looks through `cause` chains and AggregateErrors (Node's connect errors for several addresses).
 */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const e = error as {
    code?: unknown;
    errcode?: unknown;
    name?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PG_UNAVAILABLE.test(e.code))) return true;
  // node:sqlite: SQLITE_BUSY after the busy timeout (another process holds the write lock).
  if (e.errcode === 5) return true;
  if (typeof e.name === 'string' && S3_UNAVAILABLE.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status === 503 || status === 502 || status === 504)) return true;
  if (typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string))) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDependencyUnavailable(inner, depth + 1))) return true;
  return isDependencyUnavailable(e.cause, depth + 1);
}

/** Node's socket and DNS errors, and undici's. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);
/** PostgreSQL SQLSTATE: class 08 (connection exception), shutdown and "cannot connect now", too many connections. */
const PG_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** The AWS SDK's names for a store that is down, overloaded or slow. */
const S3_UNAVAILABLE = new Set(['TimeoutError', 'RequestTimeout', 'ServiceUnavailable', 'SlowDown']);
/** node-postgres reports a lost or never-made connection only in words. */
const MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /^database is locked/];
