import type { ErrorBody } from './generated/api-types.ts';

/**
 * An error answer of the API: the contract's body (`error`, `code`, `message`, `details`) with the
 * HTTP status and the request id to quote to support. Branch on `error` or `code`, never on `message`.
 */
export class DocuVaultError extends Error {
  override readonly name: string = 'DocuVaultError';
  readonly status: number;
  readonly error: string;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    body: ErrorBody,
    meta: { requestId?: string | undefined; retryAfter?: number | undefined } = {},
  ) {
    super(body.message);
    this.status = status;
    this.error = body.error;
    this.code = body.code;
    this.details = body.details;
    this.requestId = meta.requestId;
    this.retryAfter = meta.retryAfter;
  }
}

/** 400: `validation_error` (see `details.errors`), `folder_not_empty`, `invalid_query`, ... */
export class ValidationError extends DocuVaultError {
  override readonly name = 'ValidationError';
}
/** 401: no credential, or a wrong, expired or revoked one. */
export class AuthenticationError extends DocuVaultError {
  override readonly name = 'AuthenticationError';
}
/** 402 `insufficient_credits`: the month's AI credits are spent. */
export class InsufficientCreditsError extends DocuVaultError {
  override readonly name = 'InsufficientCreditsError';
}
/** 403: a role, tier, CSRF or suspension refusal. */
export class PermissionError extends DocuVaultError {
  override readonly name = 'PermissionError';
}
/** 404: no such resource among those the caller may see. */
export class NotFoundError extends DocuVaultError {
  override readonly name = 'NotFoundError';
}
/** 409: a taken name, or a state that does not allow the action. */
export class ConflictError extends DocuVaultError {
  override readonly name = 'ConflictError';
}
/** 412 `precondition_failed`: the resource changed since the `ifMatch` ETag was read (`details.etag` is the current one). */
export class PreconditionFailedError extends DocuVaultError {
  override readonly name = 'PreconditionFailedError';
}
/** 429 `rate_limit_exceeded`, after the client's own retries ran out. */
export class RateLimitError extends DocuVaultError {
  override readonly name = 'RateLimitError';
}

const BY_STATUS: Record<number, typeof DocuVaultError> = {
  400: ValidationError,
  401: AuthenticationError,
  402: InsufficientCreditsError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  429: RateLimitError,
};

/** The typed error for an error answer; a body that is not the contract's still gives its status. */
export async function errorFromResponse(res: Response): Promise<DocuVaultError> {
  const text = await res.text().catch(() => '');
  return errorFromBody(res.status, parseErrorBody(res.status, text), {
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterSeconds(res.headers.get('retry-after')),
  });
}

/** The typed error for a status and a contract error body (also used for SSE `error` events). */
export function errorFromBody(
  status: number,
  body: ErrorBody,
  meta: { requestId?: string | undefined; retryAfter?: number | undefined } = {},
): DocuVaultError {
  const Type = BY_STATUS[status] ?? DocuVaultError;
  return new Type(status, body, meta);
}

function parseErrorBody(status: number, text: string): ErrorBody {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof body.error === 'string' && typeof body.message === 'string') {
      return {
        error: body.error,
        code: body.code ?? body.error.toUpperCase(),
        message: body.message,
        ...(body.details ? { details: body.details } : {}),
      };
    }
  } catch {
    // Not JSON (a proxy's page): fall through to a generic body.
  }
  return { error: 'http_error', code: 'HTTP_ERROR', message: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}` };
}

/** Retry-After as seconds: either delta-seconds or an HTTP date. */
export function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
