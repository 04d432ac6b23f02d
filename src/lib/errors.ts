/**
 * The one error type services throw. It carries the contract's machine name (`error`, lower case;
 * the wire `code` is its upper-case form), the HTTP status and optional details (docs/api-decisions.md §4).
 * Services never build HTTP answers themselves; the error handler turns this into the body.
 */
export class AppError extends Error {
  readonly status: number;
  readonly error: string;
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers (for example Retry-After). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    error: string,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.error = error;
    this.details = options.details;
    this.headers = options.headers;
  }

  get code(): string {
    return this.error.toUpperCase();
  }
}

export interface FieldError {
  field: string;
  message: string;
}

/** Factories with stable names, one per error of the contract. */
export const errors = {
  validation: (errors: FieldError[], message?: string) =>
    new AppError(400, 'validation_error', message ?? errors.map((e) => `${e.field}: ${e.message}`).join('; '), {
      details: { errors },
    }),
  field: (field: string, message: string) => errors.validation([{ field, message }]),
  unauthorized: (message = 'Authentication is required') => new AppError(401, 'unauthorized', message),
  invalidApiKey: (message = 'The API key is invalid or has been revoked') =>
    new AppError(401, 'invalid_api_key', message),
  forbidden: (message = 'You are not allowed to do this') => new AppError(403, 'forbidden', message),
  csrfInvalid: () =>
    new AppError(403, 'csrf_token_invalid', 'A valid X-CSRF-Token header is required for this request'),
  tenantSuspended: () => new AppError(403, 'tenant_suspended', 'This tenant is suspended'),
  tierLimit: (message: string, details: Record<string, unknown>) =>
    new AppError(403, 'tier_limit_exceeded', message, { details }),
  notFound: (resourceType: string, resourceId?: string) =>
    new AppError(404, 'not_found', `${capitalise(resourceType)} not found`, {
      details:
        resourceId === undefined
          ? { resource_type: resourceType }
          : { resource_type: resourceType, resource_id: resourceId },
    }),
  conflict: (message: string, details?: Record<string, unknown>) => new AppError(409, 'conflict', message, { details }),
  fileTooLarge: (message: string, details?: Record<string, unknown>) =>
    new AppError(413, 'file_too_large', message, { details }),
  invalidFileType: (message: string, details?: Record<string, unknown>) =>
    new AppError(415, 'invalid_file_type', message, { details }),
  /** Spec "Errors": a webhook URL that is not HTTPS (or points at a refused address). */
  invalidUrl: (message: string, details?: Record<string, unknown>) =>
    new AppError(400, 'invalid_url', message, { details }),
  /** Spec "Errors": an unknown event name. */
  invalidEvent: (message: string, details?: Record<string, unknown>) =>
    new AppError(400, 'invalid_event', message, { details }),
  /** Spec "Endpoints > Search": an empty or blank search query (wire code `INVALID_QUERY`). */
  invalidQuery: (message = 'The search query must not be empty') => new AppError(400, 'invalid_query', message),
  /** A dependency the request needs (database, blob store, rate-limit store) is down; try again shortly. */
  unavailable: (message: string, retryAfterSeconds: number) =>
    new AppError(503, 'service_unavailable', message, { headers: { 'retry-after': String(retryAfterSeconds) } }),
  /** Contract §10: a workflow definition that cannot run (`details.errors`). */
  invalidWorkflow: (errorList: string[], warnings: string[] = [], issues: readonly object[] = []) =>
    new AppError(400, 'invalid_workflow', `The workflow is invalid: ${errorList.join('; ')}`, {
      details: { errors: errorList, warnings, issues },
    }),
  /** Contract §10: pause of an execution that is not running. */
  executionNotPausable: (message: string) => new AppError(409, 'execution_not_pausable', message),
  /** Contract §10: resume or cancel of an execution in a state that does not allow it. */
  executionNotResumable: (message: string) => new AppError(409, 'execution_not_resumable', message),
  /** Contract §10: completing a task that was already completed. */
  taskAlreadyCompleted: (message = 'The task was already completed') =>
    new AppError(409, 'task_already_completed', message),
  /** Contract §10: completing a task that expired. */
  taskExpired: (message = 'The task has expired') => new AppError(409, 'task_expired', message),
  /** Contract §10: the caller may not act on this workflow resource (not an assignee, owner or admin). */
  insufficientPermissions: (message: string) => new AppError(403, 'insufficient_permissions', message),
  internal: (cause?: unknown) => new AppError(500, 'internal_error', 'An internal error occurred', { cause }),
  /** A server the tenant registered (an MCP server) answered badly or could not be reached. */
  badGateway: (message: string, details?: Record<string, unknown>) =>
    new AppError(502, 'bad_gateway', message, { details }),
  /** A server the tenant registered (an MCP server) did not answer within the time allowed. */
  gatewayTimeout: (message: string, details?: Record<string, unknown>) =>
    new AppError(504, 'gateway_timeout', message, { details }),
  workflowNotFound: () => new AppError(404, 'workflow_not_found', 'Workflow not found'),
  executionNotFound: () => new AppError(404, 'execution_not_found', 'Execution not found'),
  taskNotFound: () => new AppError(404, 'task_not_found', 'Task not found'),
  /** Chat: the document has no finished text to answer from (docs/api-decisions.md §7). */
  documentNotReady: (message: string, details: Record<string, unknown>) =>
    new AppError(409, 'document_not_ready', message, { details }),
  /** A deletion (document, folder, version, stored copy) of something an active legal hold covers (docs/records.md); `details` name the hold. */
  legalHold: (message: string, details: Record<string, unknown>) =>
    new AppError(409, 'legal_hold', message, { details }),
  /** Not enough AI credits left this month. */
  insufficientCredits: (message: string, details: Record<string, unknown>) =>
    new AppError(402, 'insufficient_credits', message, { details }),
  /** A folder deleted without force still holds something. */
  folderNotEmpty: (folderId: string) =>
    new AppError(
      400,
      'folder_not_empty',
      'The folder is not empty; delete with force=true to remove it with its contents',
      {
        details: { resource_type: 'folder', resource_id: folderId },
      },
    ),
  /** 429 with the rate-limit headers (request limits, sign-in failures). */
  rateLimited: (
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) => new AppError(429, 'rate_limit_exceeded', message, options),
  payloadTooLarge: () => new AppError(413, 'payload_too_large', 'The request body is too large'),
  unsupportedMediaType: () =>
    new AppError(415, 'unsupported_media_type', 'This endpoint does not accept that Content-Type'),
  /** If-Match names an ETag the resource no longer has. */
  preconditionFailed: (etag: string) =>
    new AppError(
      412,
      'precondition_failed',
      'The resource has changed since it was read: If-Match does not name its current ETag',
      { details: { etag } },
    ),
  idempotencyKeyReused: () =>
    new AppError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was used for a different request (method, path, body or caller)',
    ),
  idempotencyInProgress: () =>
    new AppError(
      409,
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed; retry shortly',
      {
        headers: { 'retry-after': '1' },
      },
    ),
  /** A 4xx the framework raised that no other code names. */
  badRequest: (status: number, message: string) => new AppError(status, 'bad_request', message),
  /** A tenant archive that cannot be imported (docs/tenant-export.md): the first bad entry is named. */
  archiveDamaged: (entry: string, reason: string) =>
    new AppError(422, 'archive_damaged', `The archive is damaged: ${entry} ${reason}`, { details: { entry, reason } }),
};

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, ' ');
}
