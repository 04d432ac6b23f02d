import type { Generated } from 'kysely';

/* Identity's tables: tenants, users, API keys, workspaces, sign-in (sessions, tokens, signing keys), CORS origins. */

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

export interface TenantCorsOriginsTable {
  origin: string;
  tenant_id: string;
}

/**
 * The change log of identity rows (API keys, users, sessions, tenants), appended by triggers.
 * SQLite deployments read it to invalidate their credential caches across processes; on
 * PostgreSQL the same triggers notify instead and the table stays empty.
 */
export interface IdentityChangesTable {
  /** AUTOINCREMENT: commits in order, never reused. */
  seq: Generated<number>;
  /** `k:<api key id>`, `u:<user id>`, `s:<session id>`, `t:<tenant id>`. */
  tag: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    tenants: TenantsTable;
    users: UsersTable;
    api_keys: ApiKeysTable;
    workspaces: WorkspacesTable;
    workspace_members: WorkspaceMembersTable;
    signing_keys: SigningKeysTable;
    auth_sessions: AuthSessionsTable;
    refresh_tokens: RefreshTokensTable;
    password_reset_tokens: PasswordResetTokensTable;
    tenant_cors_origins: TenantCorsOriginsTable;
    identity_changes: IdentityChangesTable;
  }
}
