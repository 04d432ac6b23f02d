import type { Tenant } from '../tenants/tenants.repository.ts';
import type { BuiltInRole } from '../users/users.repository.ts';

/** Who is calling, resolved once per request by the authentication hook. */
export interface AuthContext {
  /** The tenant whose data the request reaches (the sandbox twin for sandbox requests). */
  tenant: Tenant;
  /** The acting user; null for API keys, which act as a tenant administrator (contract §3). */
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
