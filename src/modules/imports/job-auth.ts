import type { AuthContext } from '../../domain/auth-context.ts';
import type { TenantDirectory } from '../../domain/tenant.ts';

/**
 * Who an import job acts as: the tenant administrator who set the project up (imported documents
 * and folders are theirs), with an administrator's reach, as the API key or admin that started it had.
 */
export async function importAuth(
  tenants: TenantDirectory,
  tenantId: string,
  createdBy: string | null,
): Promise<AuthContext | null> {
  const tenant = await tenants.findById(tenantId);
  if (!tenant) return null;
  return {
    tenant,
    userId: createdBy,
    role: 'admin',
    roles: [],
    via: 'api_key',
    apiKeyId: null,
    sessionId: null,
    sandbox: tenant.sandboxOf !== null,
  };
}
