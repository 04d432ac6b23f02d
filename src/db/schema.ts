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
}

export interface WorkspacesTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
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
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface DB {
  tenants: TenantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  events: EventsTable;
  jobs: JobsTable;
}

export type { Generated };
