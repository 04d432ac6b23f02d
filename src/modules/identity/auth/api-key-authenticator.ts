import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { apiKeyEnvironment, apiKeyPrefix, hashApiKey, sameHash } from '../api-keys/api-key-secrets.ts';
import type { ApiKeysRepository } from '../api-keys/api-keys.repository.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';

/** Writes of last_used_at are coalesced to one a minute per key so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

/** Resolves an `X-API-Key` into the caller's context, or throws the contract's 401/403. */
export class ApiKeyAuthenticator {
  private readonly deps: { database: Database; clock: Clock; apiKeys: ApiKeysRepository; tenants: TenantsRepository };
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
    const { database, apiKeys, clock } = this.deps;
    const hash = hashApiKey(presented);
    const now = clock.now();
    const candidates = await apiKeys.findActiveByPrefix(database.db, prefix, now);
    let match: (typeof candidates)[number] | undefined;
    for (const candidate of candidates) if (sameHash(candidate.hash, hash)) match = candidate;
    if (!match) throw errors.invalidApiKey();
    const tenant = match.tenant;
    if (tenant.status === 'suspended') throw errors.tenantSuspended();

    if (now - (this.lastTouched.get(match.id) ?? 0) > TOUCH_INTERVAL_MS) {
      this.lastTouched.set(match.id, now);
      await apiKeys.touchLastUsed(database.db, tenant.id, match.id, now);
    }
    return {
      tenant,
      userId: null,
      role: 'admin',
      roles: [],
      via: 'api_key',
      apiKeyId: match.id,
      sessionId: null,
      sandbox: options.sandbox,
    };
  }
}
