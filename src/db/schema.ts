import type { Generated } from 'kysely';

/*
 * Table shapes as Kysely sees them. Conventions, the same on both dialects:
 * ids are text (UUIDv7 or prefixed), timestamps are epoch milliseconds (BIGINT),
 * booleans are 0/1 integers, JSON is stored as text and parsed by repositories.
 */

export interface TenantsTable {
  id: string;
  name: string;
  subdomain: string;
  tier: string;
  status: string;
  cors_origins: string;
  /** For a sandbox twin: the live tenant it mirrors. Null for live tenants. */
  sandbox_of: string | null;
  /** Sandbox twins: when their data was last cleared (every 7 days). */
  sandbox_cleared_at: Generated<number | null>;
  /** JSON: the tenant's settings (`GET/PATCH /tenant/settings`), e.g. `{"ai_review_threshold": 0.7}`. */
  settings: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: string;
  tenant_id: string;
  email: string;
  /** Lower-cased e-mail, unique per tenant. */
  email_key: string;
  name: string;
  password_hash: string | null;
  role: string;
  /** JSON string[] of custom role names. */
  roles: string;
  status: string;
  /** 1 = receives notification mail (security mail is always sent); docs/mail.md. */
  notification_mail: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  /** Public, non-secret start of the key, used to find the row. */
  prefix: string;
  /** SHA-256 hex of the whole key. */
  key_hash: string;
  environment: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Rotation: the previous secret's prefix and hash, valid until previous_expires_at. */
  previous_prefix: string | null;
  previous_key_hash: string | null;
  previous_expires_at: number | null;
}

export interface WorkspacesTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  created_by: string | null;
  /** Lower-cased name, unique per tenant. */
  name_key: string | null;
  created_at: number;
  updated_at: number;
}

export interface WorkspaceMembersTable {
  tenant_id: string;
  workspace_id: string;
  user_id: string;
  created_at: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** JSON object. */
  data: string;
  created_at: number;
}

export interface JobsTable {
  id: string;
  kind: string;
  tenant_id: string | null;
  /** JSON payload. */
  payload: string;
  state: string;
  priority: number;
  attempts: number;
  max_attempts: number;
  run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  unique_key: string | null;
  last_error: string | null;
  /** Runs in a row that ended with their lease expiring (the process died); reset by a run that ends. */
  lease_expiries: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface FoldersTable {
  id: string;
  tenant_id: string;
  parent_id: string | null;
  name: string;
  /** Lower-cased name (siblings are unique case-insensitively). */
  name_key: string;
  color: string;
  icon: string;
  created_by: string | null;
  /** Documents directly inside, kept by triggers on `documents`. */
  document_count: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface DocumentsTable {
  id: string;
  tenant_id: string;
  folder_id: string | null;
  /** The uploading user; null when uploaded with an API key. */
  owner_id: string | null;
  collection_id: string | null;
  filename: string;
  original_filename: string;
  /** Lower-case extension without the dot (`pdf`). */
  extension: string;
  /** Media type. */
  file_type: string;
  file_size: number;
  sha256: string;
  storage_key: string;
  thumbnail_key: string | null;
  thumbnail_type: string | null;
  status: string;
  ai_status: string;
  enable_ai: number;
  ai_summary: string | null;
  /** JSON string[]. */
  ai_tags: string;
  /** JSON {people, organizations, dates, places, amounts}: plain lists. */
  entities: string;
  /** One of the AI document types (`invoice`, …); null before enrichment. */
  ai_document_type: string | null;
  /** JSON: confidences, key fields, tag details and typed entities of the last enrichment; null before. */
  ai_enrichment: string | null;
  /** JSON object. */
  metadata: string;
  /** JSON {stage, message} or null. */
  processing_error: string | null;
  /** Which storage provider holds the bytes (set by storage migrations); null: the tenant's write provider. */
  storage_provider: string | null;
  created_at: number;
  updated_at: number;
}

export interface DocumentContentsTable {
  document_id: string;
  tenant_id: string;
  content: string;
  pages: number | null;
  /** JSON string[]: the text of each page, slide or sheet; null where the format has none. */
  page_texts: string | null;
  created_at: number;
}

/** A passage of a document and its embedding (float32, little-endian), for semantic search and chat. */
export interface DocumentChunksTable {
  document_id: string;
  chunk_index: number;
  tenant_id: string;
  page: number | null;
  text: string;
  embedding: Uint8Array | null;
  /** `<model>:<dimensions>`; vectors of different models are never compared. */
  embedding_model: string | null;
  created_at: number;
}

export interface TagsTable {
  id: string;
  tenant_id: string;
  name: string;
  name_key: string;
  color: string;
  created_at: number;
}

export interface DocumentTagsTable {
  tenant_id: string;
  document_id: string;
  tag_id: string;
  created_at: number;
}

/**
 * SQLite only (migration 20261127_2100_document_name_index): each document's row in the filename
 * trigram index, `id` being its rowid in the FTS5 table `document_names`. Written by triggers.
 */
export interface DocumentNameRowsTable {
  id: number;
  tenant_id: string;
  document_id: string;
}

export interface DocumentSharesTable {
  id: string;
  tenant_id: string;
  document_id: string;
  user_id: string | null;
  workspace_id: string | null;
  permission: string;
  created_by: string | null;
  created_at: number;
}

export interface BatchJobsTable {
  id: string;
  tenant_id: string;
  collection_id: string;
  created_by: string | null;
  total: number;
  /** JSON [{filename, error, code, message}]. */
  rejected: string;
  created_at: number;
}

/**
 * Every table has one owner, named beside it (module tables are owned by the module whose
 * `*.tables.ts` declares them): only the owner's code names the table in SQL, others go through the
 * owner's public entry. `npm run lint` checks it (scripts/check-table-owners.ts).
 */
export interface DB {
  tenants: TenantsTable; // owner: identity
  users: UsersTable; // owner: identity
  api_keys: ApiKeysTable; // owner: identity
  workspaces: WorkspacesTable; // owner: identity
  workspace_members: WorkspaceMembersTable; // owner: identity
  events: EventsTable; // owner: src/events
  jobs: JobsTable; // owner: src/jobs
  folders: FoldersTable; // owner: documents
  documents: DocumentsTable; // owner: documents
  document_contents: DocumentContentsTable; // owner: documents
  document_chunks: DocumentChunksTable; // owner: processing
  tags: TagsTable; // owner: documents
  document_tags: DocumentTagsTable; // owner: documents
  document_shares: DocumentSharesTable; // owner: documents
  document_name_rows: DocumentNameRowsTable; // owner: documents
  batch_jobs: BatchJobsTable; // owner: documents
  server_secrets: ServerSecretsTable; // owner: src/db
  signing_keys: SigningKeysTable; // owner: identity
  auth_sessions: AuthSessionsTable; // owner: identity
  refresh_tokens: RefreshTokensTable; // owner: identity
  password_reset_tokens: PasswordResetTokensTable; // owner: identity
  idempotency_records: IdempotencyRecordsTable; // owner: src/http
  tenant_cors_origins: TenantCorsOriginsTable; // owner: identity
}

/** Secrets generated once and shared by every process (e.g. the CSRF key when AUTH_SECRET is unset). */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

/** JWT signing keys; `id` is the token's `kid`. */
export interface SigningKeysTable {
  id: string;
  algorithm: string;
  /** base64url key material. */
  secret: string;
  created_at: number;
  retired_at: number | null;
}

/** A login session: the family of its refresh tokens; revoking it stops its access tokens too. */
export interface AuthSessionsTable {
  id: string;
  tenant_id: string;
  user_id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: number;
  last_used_at: number;
  expires_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
}

export interface RefreshTokensTable {
  id: string;
  tenant_id: string;
  session_id: string;
  /** SHA-256 hex of the opaque token. */
  token_hash: string;
  created_at: number;
  expires_at: number;
  spent_at: number | null;
}

export interface PasswordResetTokensTable {
  id: string;
  tenant_id: string;
  user_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** The first answer to a request with an Idempotency-Key, replayed for repeats (24 h). */
export interface IdempotencyRecordsTable {
  /** A tenant id, or `admin` for the administrator's endpoints. */
  scope: string;
  /** SHA-256 of the scope and the key (the key itself is not stored). */
  key: string;
  /** Who sent it: `user:<id>`, `key:<id>` or `admin`. */
  principal: string;
  method: string;
  path: string;
  /** SHA-256 of the body (or multipart fields and file hashes); null until a multipart handler declares it. */
  fingerprint: string | null;
  /** `running` or `completed`. */
  state: string;
  status_code: number | null;
  /** Response headers and body, sealed (src/http/idempotency-sealing.ts). */
  headers: string | null;
  body: string | null;
  locked_until: number;
  created_at: number;
  expires_at: number;
}

export interface TenantCorsOriginsTable {
  origin: string;
  tenant_id: string;
}

export type { Generated };
