/** Why an outbound call failed, in words callers can branch on and record in delivery logs. */
export type OutboundErrorCode =
  | 'blocked_address'
  | 'invalid_url'
  | 'timeout'
  | 'connect_failed'
  | 'tls'
  | 'aborted'
  | 'network'
  | 'response_too_large';

/** The one error the guarded client throws; the original error is kept as `cause`. */
export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'OutboundError';
    this.code = code;
  }
}

const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

// Certificate verification codes OpenSSL reports through Node (the rest carry ERR_SSL_/ERR_TLS_).
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

/**
 * Turns whatever undici, net or tls threw into an OutboundError. The signals say whether the
 * caller gave up or the total budget ran out, which the thrown error alone cannot tell apart.
 */
export function toOutboundError(
  error: unknown,
  signals: { caller?: AbortSignal | undefined; deadline: AbortSignal; timeoutMs: number },
): OutboundError {
  if (error instanceof OutboundError) return error;
  if (signals.caller?.aborted) return new OutboundError('aborted', 'Request aborted by the caller', { cause: error });
  if (signals.deadline.aborted) {
    return new OutboundError('timeout', `Request exceeded ${signals.timeoutMs} ms`, { cause: error });
  }
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof OutboundError) return e;
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CONNECT_FAILURES.has(code)) return new OutboundError('connect_failed', e.message, { cause: error });
    if (TIMEOUTS.has(code)) return new OutboundError('timeout', e.message, { cause: error });
    if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
      return new OutboundError('tls', e.message, { cause: error });
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new OutboundError('network', message, { cause: error });
}
