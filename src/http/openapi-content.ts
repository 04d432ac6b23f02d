/*
 * The words of the OpenAPI document that no single route owns: the API's introduction, tag
 * descriptions, security schemes, the shared error answers and headers, and examples. The mechanism
 * that places them is src/http/openapi.ts; the guide behind them is docs/api.md.
 */

export const OPENAPI_INFO = {
  title: 'Document Management Service API',
  version: '1.0.0',
  description: [
    'Multi-tenant document management with AI processing: folders, streamed uploads, downloads, tags, shares,',
    'text extraction, summaries, tags and entities, search, chat with citations, and signed webhooks.',
    '',
    '**Authentication.** Tenant operations take an API key in `X-API-Key` (`ak_live_...`; `ak_test_...` only in the',
    'sandbox) or a user access token as `Authorization: Bearer <token>` with `X-Tenant-Subdomain` (from `POST',
    '/api/v1/auth/login`); with a user token, POST, PUT, PATCH and DELETE also need `X-CSRF-Token`.',
    'Administrator operations (`/api/v1/admin/...`) take `Authorization: Bearer <ADMIN_API_KEY>`.',
    '',
    '**Errors** always answer `{error, code, message, details?}`; `code` is `error` in upper case, and',
    '`validation_error` lists every bad field in `details.errors`.',
    '',
    '**Lists** are paged with `page` (from 1) and `page_size` (at most 100): `{data, total, page, page_size}`.',
    '',
    '**Rate limits** are per tenant and per minute, by tier and endpoint type; limited answers carry',
    '`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`, and 429 adds `Retry-After`.',
    '',
    '**Idempotency.** Send `Idempotency-Key` on an authenticated POST, PUT, PATCH or DELETE to have a retry',
    'answered with the first answer (`Idempotent-Replayed: true`) for 24 hours.',
    '',
    '**Sandbox.** Every path also answers under `/sandbox` (the second server below) with test keys, separate',
    'data cleared every 7 days and half the rate limits.',
  ].join('\n'),
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  contact: { name: 'Document Management Service maintainers' },
};

export const OPENAPI_SERVERS = [
  { url: '/', description: 'This deployment: live data, `ak_live_` keys and user tokens.' },
  {
    url: '/sandbox',
    description:
      'The sandbox of this deployment: `ak_test_` keys only, separate data cleared every 7 days, half the rate limits.',
  },
];

/** Tag descriptions, in the order the document lists them; a tag missing here gets a generic one. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Sign-in with e-mail and password, access and refresh tokens, CSRF tokens, sessions and passwords. Public calls name the tenant with `X-Tenant-Subdomain`.',
  'api-keys':
    'API keys of the tenant (`ak_live_` and `ak_test_`): the full key is shown once, when created or rotated.',
  users: 'The tenant’s users and their roles (`owner`, `admin`, `member`, `viewer`, plus custom role names).',
  workspaces: 'Groups of users that documents and folders can be shared with.',
  'legal-holds':
    'Legal holds (owners and admins): while active, nothing a hold covers may be deleted: 409 `legal_hold` naming the hold. A folder hold covers everything below it, also what is added later (docs/records.md).',
  'retention-rules':
    'Retention rules (owners and admins): documents of a folder tree are deleted, or sent to the task inbox for review, `keep_days` after their upload or current version; run in the worker (docs/records.md).',
  'saved-views':
    'Saved views of the documents page, per person: a folder with its sort and filters under a name. Each is its owner’s only (a user’s, or an API key’s); another person gets 404 (docs/console.md "Saved views").',
  tenant:
    'The caller’s tenant’s settings, such as the confidence below which AI results go to review (`ai_review_threshold`).',
  folders: 'Nested folders. Names are unique among siblings (case-insensitive).',
  documents:
    'Uploads (multipart, streamed, singly or in batches of up to 10), document metadata and AI results, extracted text, downloads with ranges, thumbnails, shares and batch jobs.',
  tags: 'Manual tags, created on first use by uploads and updates.',
  search: 'Keyword, semantic, hybrid and enhanced search over the documents the caller may see.',
  chat: 'Chat sessions about a document: answers with citations, optionally streamed as server-sent events; each question costs 1 AI credit.',
  webhooks:
    'Signed HTTPS callbacks for events (`document.processed`, `chat.message.created`, ...), with a delivery log, retries and redelivery.',
  mcp: 'The Model Context Protocol endpoint for AI agents, authenticated and scoped like the REST API.',
  admin: 'Administrator operations: tenants, tiers, suspension. `Authorization: Bearer <ADMIN_API_KEY>`.',
  health: 'Liveness and readiness probes: public and never rate limited.',
  meta: 'This API’s own description.',
};

export const OPENAPI_SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'A tenant API key: `ak_live_...` on the live API, `ak_test_...` in the sandbox. Acts as a tenant administrator; needs no CSRF token.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A user access token from `POST /api/v1/auth/login` (15 minutes; renew with `POST /api/v1/auth/refresh`). Sent with `X-Tenant-Subdomain`; POST, PUT, PATCH and DELETE also need `X-CSRF-Token`.',
  },
  tenantSubdomain: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Tenant-Subdomain',
    description: 'The subdomain of the tenant a user token belongs to; required with every user token.',
  },
  adminKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The administrator key (`ADMIN_API_KEY`, generated into `DATA_DIR/admin-api-key` on first start when unset). Never a tenant credential.',
  },
};

/** Response headers, by component name; `name` is the wire name (dropped from the component itself). */
export const OPENAPI_HEADERS = {
  RateLimitLimit: {
    name: 'X-RateLimit-Limit',
    description:
      'Requests allowed in the current one-minute window by the tightest counter (tier-wide or endpoint type).',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: {
    name: 'X-RateLimit-Remaining',
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitReset: {
    name: 'X-RateLimit-Reset',
    description: 'When the window ends, in Unix seconds.',
    schema: { type: 'integer', minimum: 0 },
  },
  RetryAfter: {
    name: 'Retry-After',
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  },
  ETag: {
    name: 'ETag',
    description:
      'The entity tag of the representation: send it back as `If-None-Match` (304 when unchanged) or, on updates that take it, `If-Match` (412 when changed since).',
    schema: { type: 'string' },
  },
  LastModified: {
    name: 'Last-Modified',
    description: 'When the resource last changed (`updated_at`), as an HTTP date.',
    schema: { type: 'string' },
  },
} as const;

/** Request header parameters the platform reads. */
export const OPENAPI_PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Any 1 to 255 printable ASCII characters. A retry with the same key gets the first answer again (with `Idempotent-Replayed: true`) for 24 hours; the same key with another method, path or body is 422 `idempotency_key_reused`, and while the first request runs 409 `idempotency_in_progress`.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An `ETag` this client holds: when it is still current the answer is 304 without a body.',
    schema: { type: 'string' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of the representation this update is based on (from GET): when the resource changed since, the answer is 412 `precondition_failed` and nothing changes. `*` matches any existing resource.',
    schema: { type: 'string' },
  },
  CsrfToken: {
    name: 'X-CSRF-Token',
    in: 'header',
    required: false,
    description:
      'Required with a user token (from login, refresh or `GET /api/v1/auth/csrf`); not used with an API key. Missing or wrong: 403 `csrf_token_invalid`.',
    schema: { type: 'string' },
  },
} as const;

export interface ErrorExample {
  error: string;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type ErrorResponseName =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'Conflict'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'IdempotencyKeyReused'
  | 'TooManyRequests'
  | 'PreconditionFailed'
  | 'ServiceUnavailable'
  | 'ClientError';

/** The shared error answers: status, description, an example body, the headers they carry. */
export const ERROR_RESPONSES: readonly {
  name: ErrorResponseName;
  status: string;
  description: string;
  example: ErrorExample;
  headers?: readonly (keyof typeof OPENAPI_HEADERS)[];
}[] = [
  {
    name: 'BadRequest',
    status: '400',
    description:
      'The request is invalid: `validation_error`, with every bad field in `details.errors` (also for a body that is not valid JSON).',
    example: {
      error: 'validation_error',
      code: 'VALIDATION_ERROR',
      message: 'Invalid request: name is required',
      details: { errors: [{ field: 'name', message: 'is required' }] },
    },
  },
  {
    name: 'Unauthorized',
    status: '401',
    description:
      'No credential, or one that is wrong, expired or revoked (`unauthorized`, `invalid_api_key`). The message says what to send.',
    example: {
      error: 'unauthorized',
      code: 'UNAUTHORIZED',
      message: 'Send an X-API-Key header or Authorization: Bearer <access token> with X-Tenant-Subdomain',
    },
  },
  {
    name: 'Forbidden',
    status: '403',
    description:
      'Authenticated but not allowed: the role (`forbidden`), the tier or a quota (`tier_limit_exceeded`, with `details.current_tier` and `required_tier` or `limit`), a suspended tenant (`tenant_suspended`), or a user-token call without a valid `X-CSRF-Token` (`csrf_token_invalid`).',
    example: {
      error: 'csrf_token_invalid',
      code: 'CSRF_TOKEN_INVALID',
      message: 'A valid X-CSRF-Token header is required for this request',
    },
  },
  {
    name: 'NotFound',
    status: '404',
    description:
      'No such resource among those the caller may see (`not_found`); a resource of another tenant, or one not shared with the caller, answers the same.',
    example: {
      error: 'not_found',
      code: 'NOT_FOUND',
      message: 'Document not found',
      details: { resource_type: 'document', resource_id: '019ab2f4-6c1e-7d3a-9b52-4e8f0a1c2d3e' },
    },
  },
  {
    name: 'Conflict',
    status: '409',
    description:
      'The current state does not allow it (`conflict`), or a request with the same `Idempotency-Key` is still running (`idempotency_in_progress`).',
    example: {
      error: 'idempotency_in_progress',
      code: 'IDEMPOTENCY_IN_PROGRESS',
      message: 'A request with this Idempotency-Key is still being processed; retry shortly',
    },
  },
  {
    name: 'PayloadTooLarge',
    status: '413',
    description: 'The body is larger than allowed (`payload_too_large`; `file_too_large` for an uploaded file).',
    example: { error: 'payload_too_large', code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large' },
  },
  {
    name: 'UnsupportedMediaType',
    status: '415',
    description:
      'A `Content-Type` this operation does not take (`unsupported_media_type`; JSON must be sent as `application/json`), or a file whose bytes are not of its claimed type (`invalid_file_type`).',
    example: {
      error: 'unsupported_media_type',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'This endpoint does not accept that Content-Type',
    },
  },
  {
    name: 'IdempotencyKeyReused',
    status: '422',
    description:
      'This `Idempotency-Key` was used for another request (method, path, body or caller): `idempotency_key_reused`.',
    example: {
      error: 'idempotency_key_reused',
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This Idempotency-Key was used for a different request (method, path, body or caller)',
    },
  },
  {
    name: 'TooManyRequests',
    status: '429',
    description:
      'The tenant’s rate limit for this minute is spent (`rate_limit_exceeded`); retry after `Retry-After` seconds.',
    headers: ['RetryAfter', 'RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset'],
    example: {
      error: 'rate_limit_exceeded',
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'Rate limit of 15 requests per minute exceeded; retry in 42 s',
      details: { limit: 15, remaining: 0, reset_at: '2026-11-23T10:15:00.000Z', scope: 'tier' },
    },
  },
  {
    name: 'PreconditionFailed',
    status: '412',
    description:
      'The resource changed since the `If-Match` ETag was read (`precondition_failed`); `details.etag` is the current one. Read it again and retry.',
    example: {
      error: 'precondition_failed',
      code: 'PRECONDITION_FAILED',
      message: 'The resource has changed since it was read: If-Match does not name its current ETag',
      details: { etag: '"q8m2Xb7yTQ0aY1cN5vWk3pLr9sFe6hJu"' },
    },
  },
  {
    name: 'ServiceUnavailable',
    status: '503',
    description:
      'The database or the blob store cannot be reached for the moment (`service_unavailable`); retry after `Retry-After` seconds.',
    headers: ['RetryAfter'],
    example: {
      error: 'service_unavailable',
      code: 'SERVICE_UNAVAILABLE',
      message: 'A service this request needs is unavailable for the moment; retry shortly',
    },
  },
  {
    name: 'ClientError',
    status: '4XX',
    description: 'A malformed request (an undecodable URL, oversized headers...), answered with the error body.',
    example: { error: 'bad_request', code: 'BAD_REQUEST', message: 'Bad Request' },
  },
];

/** 2xx and 3xx descriptions for answers whose route gave none. */
export const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: the work continues in the background.',
  '204': 'No content',
  '206': 'Partial content: the requested byte range.',
  '304': 'Not modified',
};

/** An example answer: `name` keys it in the media type's `examples`. */
export interface OperationExample {
  name: string;
  summary: string;
  value: unknown;
}

/** Examples by operationId, then status. The completeness test checks every one against its schema. */
export type OperationExamples = Record<string, Record<string, OperationExample>>;

const documentListItem = {
  id: '019ab2f4-6c1e-7d3a-9b52-4e8f0a1c2d3e',
  filename: 'lease-2026.pdf',
  original_filename: 'lease-2026.pdf',
  file_type: 'application/pdf',
  file_size: 48213,
  folder_id: '019ab2f1-0a7b-7c55-8e21-9f3d6b4a1c08',
  status: 'completed',
  ai_status: 'completed',
  ai_summary: 'A three-year office lease between Acme Ltd and Northwind Properties, starting 1 March 2026.',
  ai_tags: ['office lease', 'rent review', 'service charge'],
  ai_document_type: { value: 'lease', confidence: 0.93 },
  tags: ['legal'],
  created_at: '2026-11-23T09:12:44.120Z',
  updated_at: '2026-11-23T09:12:51.870Z',
  processing_progress: null,
};

export const OPERATION_EXAMPLES: OperationExamples = {
  getDocument: {
    '200': {
      name: 'processed',
      summary: 'A processed PDF',
      value: {
        ...documentListItem,
        storage_path: 'tenants/019ab2e8-3b4c-7f10-a6d2-5c7e9f8a2b41/documents/019ab2f4-6c1e-7d3a-9b52-4e8f0a1c2d3e',
        thumbnail_url: 'http://127.0.0.1:8080/api/v1/documents/019ab2f4-6c1e-7d3a-9b52-4e8f0a1c2d3e/thumbnail',
        ai_thumbnail_url: null,
        entities: {
          people: ['Jane Smith'],
          organizations: ['Acme Ltd', 'Northwind Properties'],
          dates: ['2026-03-01'],
          locations: ['Leeds'],
          amounts: [{ value: 4500, currency: 'GBP', text: '£4,500', confidence: 0.95 }],
          details: {
            people: [{ name: 'Jane Smith', confidence: 0.9 }],
            organizations: [
              { name: 'Acme Ltd', confidence: 0.95 },
              { name: 'Northwind Properties', confidence: 0.72 },
            ],
            locations: [{ name: 'Leeds', confidence: 0.85 }],
            dates: [{ value: '2026-03-01', text: '01/03/2026', confidence: 0.8, alternatives: ['2026-01-03'] }],
          },
        },
        ai_summary_confidence: 0.86,
        ai_fields: {
          landlord: { value: ['Northwind Properties'], confidence: 0.88 },
          tenant: { value: ['Acme Ltd'], confidence: 0.88 },
          start_date: { value: '2026-03-01', confidence: 0.8 },
          rent: { value: { value: 4500, currency: 'GBP', text: '£4,500', period: 'month' }, confidence: 0.82 },
          term: { value: { value: 'P3Y', text: 'three years' }, confidence: 0.8 },
        },
        ai_tag_details: [
          { name: 'office lease', confidence: 0.9, source: 'extracted' },
          { name: 'rent review', confidence: 0.74, source: 'extracted' },
          { name: 'service charge', confidence: 0.66, source: 'extracted' },
        ],
        ai_review: null,
        metadata: { pages: 4, title: 'Office lease' },
        processing_error: null,
      },
    },
  },
  listDocuments: {
    '200': {
      name: 'page',
      summary: 'The first page of a folder',
      value: { data: [documentListItem], total: 1, page: 1, page_size: 20, total_pages: 1 },
    },
  },
  uploadDocument: {
    '201': {
      name: 'accepted',
      summary: 'Stored; processing continues in the background',
      value: {
        id: documentListItem.id,
        filename: 'lease-2026.pdf',
        status: 'processing',
        ai_status: 'queued',
        created_at: '2026-11-23T09:12:44.120Z',
      },
    },
  },
};
