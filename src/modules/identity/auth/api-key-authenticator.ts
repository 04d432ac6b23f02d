import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { apiKeyEnvironment, apiKeyPrefix, hashApiKey, sameHash } from '../api-keys/api-key-secrets.ts';
import type { ApiKeysRepository } from '../api-keys/api-keys.repository.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { type IdentityCache, tenantTags } from './identity-cache.ts';
import { identityTags } from './identity-changes.ts';

/** Writes of last_used_at are coalesced to one a minute per key so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves an `X-API-Key` into the caller's context, or throws the contract's 401/403.
 * The key's SHA-256 → (key id, tenant) is cached per process (`IdentityCache`): a cached key costs
 * no round trip; revocation, rotation and tenant changes drop the entry in every process within a
 * second. A rotated-out secret still in its grace period is never cached: it is checked against
 * the database on every use.
 */
export class ApiKeyAuthenticator {
  private readonly deps: { database: Database; clock: Clock; apiKeys: ApiKeysRepository; cache: IdentityCache };
  private readonly lastTouched = new Map<string, number>();
  constructor(deps: ApiKeyAuthenticator['deps']) {
    this.deps = deps;
  }

  async authenticate(presented: string, options: { sandbox: boolean }): Promise<AuthContext> {
    const environment = apiKeyEnvironment(presented);
    if (environment === 'test' && !options.sandbox) {
      throw errors.invalidApiKey('Test keys (ak_test_) work only against the sandbox at /sandbox/api/v1');
    }
    if (environment === 'live' && options.sandbox) {
      throw errors.invalidApiKey('The sandbox accepts only test keys (ak_test_)');
    }
    const prefix = apiKeyPrefix(presented);
    if (!prefix) throw errors.invalidApiKey();
    const { database, apiKeys, clock, cache } = this.deps;
    cache.ensureStarted();
    const hash = hashApiKey(presented);
    const cacheKey = `k#${hash}`;
    const now = clock.now();

    let apiKeyId: string;
    let tenant: Tenant;
    const cached = cache.credentials.get(cacheKey);
    if (cached?.kind === 'api_key') {
      ({ apiKeyId, tenant } = cached);
    } else {
      const stamp = cache.credentials.stamp();
      const candidates = await apiKeys.findActiveByPrefix(database.db, prefix, now);
      let match: (typeof candidates)[number] | undefined;
      for (const candidate of candidates) if (sameHash(candidate.hash, hash)) match = candidate;
      if (!match) throw errors.invalidApiKey();
      tenant = match.tenant;
      if (tenant.status === 'suspended') throw errors.tenantSuspended();
      apiKeyId = match.id;
      if (match.prefix === prefix) {
        cache.credentials.set(
          cacheKey,
          { kind: 'api_key', apiKeyId, tenant },
          [identityTags.apiKey(apiKeyId), ...tenantTags(tenant)],
          stamp,
        );
      }
    }

    if (now - (this.lastTouched.get(apiKeyId) ?? 0) > TOUCH_INTERVAL_MS) {
      this.lastTouched.set(apiKeyId, now);
      await apiKeys.touchLastUsed(database.db, tenant.id, apiKeyId, now);
    }
    return {
      tenant,
      userId: null,
      role: 'admin',
      roles: [],
      via: 'api_key',
      apiKeyId,
      sessionId: null,
      sandbox: options.sandbox,
    };
  }
}
