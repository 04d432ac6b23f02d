// The DocuVault SDK: a typed client generated from the service's OpenAPI document, with a small
// hand-written layer (auth and refresh, retries, typed errors, paging, streamed uploads, chat
// streaming, webhook signatures). See docs/sdk.md.
export type { Credentials, UserTokens } from './auth.ts';
export type { ChatStreamEvent } from './chat-api.ts';
export { type ClientOptions, DocuVault, type RawRequest } from './client.ts';
export type { UploadOptions, VersionUploadOptions } from './documents-api.ts';
export {
  AuthenticationError,
  ConflictError,
  DocuVaultError,
  InsufficientCreditsError,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  RateLimitError,
  ValidationError,
} from './errors.ts';
export {
  type ErrorBody,
  OPERATIONS,
  type Operations,
  type WebhookEventData,
  type WebhookEventName,
  type WebhookEvents,
} from './generated/api-types.ts';
export type * from './operation-types.ts';
export { readServerSentEvents, type ServerSentEvent } from './sse.ts';
export type { RetryNotice, RetryOptions } from './transport.ts';
export type { UploadProgress, UploadSource } from './uploads.ts';
export { type VerifyWebhookOptions, verifyWebhookSignature } from './webhooks.ts';
export { AuditApi, type AuditPage, type AuditQuery, type AuditRecord } from './audit-api.ts';
