import type { Executor } from '../../db/executor.ts';
import type { AuthContext, BuiltInRole } from '../../domain/auth-context.ts';
import type { Principal } from '../../domain/principal.ts';
import type { TenantDirectory } from '../../domain/tenant.ts';
import type { ModuleServices } from '../../platform/module.ts';

type Members = Pick<ModuleServices['members'], 'membership'>;

/** The principal can no longer act: its user was deleted or disabled, or its tenant is gone. */
export class PrincipalUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrincipalUnavailable';
  }
}

/**
 * Background work (a workflow's nodes, its document triggers) acting as a principal, with that
 * principal's permissions as they are now: the request context the documents module's access
 * rules take. A user acts with their current role and custom roles (a demoted member reads less
 * from then on; a disabled or deleted one cannot act); an API key, and the tenant itself, act as
 * a tenant administrator, as API keys do on the API.
 */
export class ActingPrincipals {
  readonly #tenants: Pick<TenantDirectory, 'findById'>;
  readonly #members: Members;

  constructor(deps: { tenants: Pick<TenantDirectory, 'findById'>; members: Members }) {
    this.#tenants = deps.tenants;
    this.#members = deps.members;
  }

  /** The principal's access context in `tenantId`; throws PrincipalUnavailable when it cannot act. */
  async authOf(db: Executor, tenantId: string, principal: Principal): Promise<AuthContext> {
    const tenant = await this.#tenants.findById(tenantId);
    if (!tenant) throw new PrincipalUnavailable(`tenant ${tenantId} no longer exists`);
    const base = { tenant, sessionId: null, sandbox: tenant.sandboxOf !== null };
    if (principal.kind !== 'user') {
      const apiKeyId = principal.kind === 'api_key' ? principal.apiKeyId : null;
      return { ...base, userId: null, role: 'admin', roles: [], via: 'api_key', apiKeyId };
    }
    const membership = await this.#members.membership(db, tenant.id, principal.userId);
    if (!membership?.active)
      throw new PrincipalUnavailable(`the user ${principal.userId} it runs as is disabled or deleted`);
    const [role, ...custom] = membership.roles;
    return {
      ...base,
      userId: membership.userId,
      role: role as BuiltInRole,
      roles: custom,
      via: 'user_token',
      apiKeyId: null,
    };
  }
}
