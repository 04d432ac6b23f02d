import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { canManageApiKeys, requirePermission } from '../../../domain/roles.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import { identityTags } from '../auth/identity-changes.ts';
import { type ApiKeyEnvironment, generateApiKey } from './api-key-secrets.ts';
import type { ApiKey, ApiKeysRepository } from './api-keys.repository.ts';

/**
 * API keys of a tenant (docs/api-decisions.md §3, endpoints 11–14). Live keys belong to the live tenant, test
 * keys to its sandbox twin; both environments are managed from either side.
 */
export class ApiKeysService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    apiKeys: ApiKeysRepository;
    tenants: TenantsRepository;
    /** Told after a committed change, so this process's credential cache drops the key at once. */
    identityChanged?: (tags: string[]) => void;
  };
  constructor(deps: ApiKeysService['deps']) {
    this.deps = deps;
  }

  async list(auth: AuthContext, page: { limit: number; offset: number }) {
    this.authorise(auth);
    const pair = await this.tenantPair(auth);
    return this.deps.apiKeys.listActive(this.deps.database.db, [pair.live, pair.test], page);
  }

  /** Creates a key; the whole secret is in this answer only. */
  async create(
    auth: AuthContext,
    input: { name: string; environment: ApiKeyEnvironment },
  ): Promise<{ apiKey: ApiKey; key: string }> {
    this.authorise(auth);
    const pair = await this.tenantPair(auth);
    const now = this.deps.clock.now();
    const secret = generateApiKey(input.environment);
    const apiKey: ApiKey = {
      id: newId(now),
      tenantId: input.environment === 'test' ? pair.test : pair.live,
      name: input.name,
      prefix: secret.prefix,
      environment: input.environment,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.deps.apiKeys.insert(this.deps.database.db, apiKey, secret.hash);
    return { apiKey, key: secret.key };
  }

  /** Revokes a key at once (also the previous secret of a rotation still in its grace period). */
  async revoke(auth: AuthContext, id: string): Promise<void> {
    const key = await this.find(auth, id);
    await this.deps.apiKeys.revoke(this.deps.database.db, key.tenantId, key.id, this.deps.clock.now());
    this.deps.identityChanged?.([identityTags.apiKey(key.id)]);
  }

  /** A new secret for the key; the old one keeps working for `graceSeconds` (0: stops at once). */
  async rotate(
    auth: AuthContext,
    id: string,
    graceSeconds: number,
  ): Promise<{ apiKey: ApiKey; key: string; previousExpiresAt: number }> {
    const key = await this.find(auth, id);
    const now = this.deps.clock.now();
    const secret = generateApiKey(key.environment);
    const previousExpiresAt = now + graceSeconds * 1000;
    await this.deps.apiKeys.rotate(
      this.deps.database.db,
      key.tenantId,
      key.id,
      secret,
      graceSeconds > 0 ? previousExpiresAt : null,
    );
    this.deps.identityChanged?.([identityTags.apiKey(key.id)]);
    return { apiKey: { ...key, prefix: secret.prefix }, key: secret.key, previousExpiresAt };
  }

  private async find(auth: AuthContext, id: string): Promise<ApiKey> {
    this.authorise(auth);
    const pair = await this.tenantPair(auth);
    const key = await this.deps.apiKeys.findActive(this.deps.database.db, [pair.live, pair.test], id);
    if (!key) throw errors.notFound('api_key', id);
    return key;
  }

  private authorise(auth: AuthContext): void {
    requirePermission(canManageApiKeys(auth), 'Only an owner or admin may manage API keys');
  }

  private async tenantPair(auth: AuthContext): Promise<{ live: string; test: string }> {
    const live = auth.tenant.sandboxOf ?? auth.tenant.id;
    if (auth.tenant.sandboxOf) return { live, test: auth.tenant.id };
    const twin = await this.deps.tenants.findSandboxTwin(this.deps.database.db, live);
    // Every tenant has a twin; without one, test keys would have nowhere to live.
    if (!twin) throw errors.internal(new Error(`tenant ${live} has no sandbox twin`));
    return { live, test: twin.id };
  }
}
