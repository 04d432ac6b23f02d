/** Why a Drive call failed, in terms the importer acts on. */
export class DriveError extends Error {
  /** HTTP status, or null when no answer came (network, refused address). */
  readonly status: number | null;
  /** Drive's `errors[0].reason` (`rateLimitExceeded`, `exportSizeLimitExceeded`...), when given. */
  readonly reason: string | null;
  /** How long Drive asked us to wait (Retry-After), when it did. */
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    details: { status: number | null; reason: string | null; retryAfterMs: number | null; cause?: unknown },
  ) {
    super(message, { cause: details.cause });
    this.name = 'DriveError';
    this.status = details.status;
    this.reason = details.reason;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** Rate limited: 429, or 403 with a rate-limit reason (Drive's documented form). */
  get rateLimited(): boolean {
    return this.status === 429 || (this.status === 403 && /ratelimitexceeded/i.test(this.reason ?? ''));
  }

  /** Retrying cannot help: the file is gone, too large to export, or of a kind Drive will not serve. */
  get permanent(): boolean {
    if (this.status === 404) return true;
    return (
      this.reason === 'exportSizeLimitExceeded' ||
      this.reason === 'fileNotDownloadable' ||
      this.reason === 'cannotExportFile'
    );
  }
}

const RATE_LIMIT_REASONS = /ratelimitexceeded/i;

/** Turns what the Drive client threw (a GaxiosError, an outbound refusal) into a DriveError with a clear message. */
export function toDriveError(error: unknown, what: string): DriveError {
  if (error instanceof DriveError) return error;
  const e = error as {
    status?: number;
    response?: { status?: number; data?: unknown; headers?: Headers };
    message?: string;
  };
  const status = e.response?.status ?? e.status ?? null;
  if (status === null) {
    const message = error instanceof Error ? (findOutboundMessage(error) ?? error.message) : String(error);
    return new DriveError(`Could not reach Google Drive to ${what}: ${message}`, {
      status: null,
      reason: null,
      retryAfterMs: null,
      cause: error,
    });
  }
  const apiError = parseApiError(e.response?.data);
  const reason = apiError.reason;
  const retryAfterMs = parseRetryAfter(e.response?.headers?.get?.('retry-after') ?? null);
  return new DriveError(messageFor(status, reason, apiError.message, what), {
    status,
    reason,
    retryAfterMs,
    cause: error,
  });
}

function messageFor(status: number, reason: string | null, apiMessage: string | null, what: string): string {
  if (reason === 'exportSizeLimitExceeded') {
    return 'The file is larger than Google Drive exports (10 MB for Google Docs, Sheets, Slides and Drawings); export it by hand or pick a smaller format';
  }
  if (status === 404) return 'The file no longer exists in Google Drive, or the credentials cannot see it any more';
  if (status === 401)
    return 'Google Drive refused the credentials (401); give a valid access token, or a refresh token with its client id and secret';
  if (status === 429 || (status === 403 && RATE_LIMIT_REASONS.test(reason ?? '')))
    return `Google Drive rate limit reached while trying to ${what}`;
  return `Google Drive answered ${status} to ${what}${apiMessage ? `: ${apiMessage}` : ''}`;
}

/** Drive's error body `{error: {code, message, errors: [{reason, message}]}}`, as an object or as text (streamed calls). */
function parseApiError(data: unknown): { reason: string | null; message: string | null } {
  let body = data;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return { reason: null, message: null };
    }
  }
  const error = (body as { error?: { message?: unknown; errors?: { reason?: unknown }[] } } | null)?.error;
  if (!error || typeof error !== 'object') return { reason: null, message: null };
  const reason = error.errors?.[0]?.reason;
  return {
    reason: typeof reason === 'string' ? reason : null,
    message: typeof error.message === 'string' ? error.message : null,
  };
}

/** Retry-After in seconds (what Google sends); an HTTP date is honoured too. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The guarded client's refusal (a private address) is more useful than fetch's generic "fetch failed". */
function findOutboundMessage(error: Error): string | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    if (e.name === 'OutboundError') return e.message;
  }
  return null;
}
