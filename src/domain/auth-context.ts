import type { Tenant } from './tenant.ts';

/** The roles every tenant has (custom role names come on top, in `roles`). */
export const BUILT_IN_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

/** Who is calling, resolved once per request by the authentication hook. */
export interface AuthContext {
  /** The tenant whose data the request reaches (the sandbox twin for sandbox requests). */
  tenant: Tenant;
  /** The acting user; null for API keys, which act as a tenant administrator (docs/api-decisions.md §3). */
  userId: string | null;
  role: BuiltInRole;
  /** Custom role names of the user. */
  roles: string[];
  via: 'api_key' | 'user_token';
  apiKeyId: string | null;
  /** The login session behind a user token. */
  sessionId: string | null;
  sandbox: boolean;
}
