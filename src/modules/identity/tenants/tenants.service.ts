import type { Database } from '../../../db/database.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { hashPassword } from '../../../lib/passwords.ts';
import { generateApiKey } from '../api-keys/api-key-secrets.ts';
import type { ApiKeysRepository } from '../api-keys/api-keys.repository.ts';
import type { User, UsersRepository } from '../users/users.repository.ts';
import type { TenantsRepository } from './tenants.repository.ts';
import { identityTags } from '../auth/identity-changes.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { requireTenantAdmin } from '../../../domain/roles.ts';
import type { Tenant, TenantSettings } from '../../../domain/tenant.ts';
import { requireFeature } from '../../../domain/tier-gate.ts';
import { type TenantStatus, TIER_LIMITS, type Tier } from '../../../domain/tiers.ts';
import type { Executor } from '../../../db/executor.ts';
import { lockTenant } from '../../../db/locks.ts';
import type { TierChange, TierChangeCause, TierChangeHook } from '../../../domain/tier-change.ts';

/** Usage counts of one tenant, by name (`documents`, `storage_bytes`), for the admin view. */
export type TenantUsageSource = (tenantId: string) => Promise<Record<string, number>>;

const ADMIN_CAUSE: TierChangeCause = { reason: 'admin', actor: 'administrator', reference: null };

export interface CreateTenantInput {
  name: string;
  subdomain: string;
  tier: Tier;
  owner: { email: string; password: string; name: string };
}

export interface CreatedTenant {
  tenant: Tenant;
  owner: User;
  /** Null when created without keys (self-service registration: keys are made on demand). */
  apiKey: string | null;
  testApiKey: string | null;
}

/** The sandbox twin's subdomain: a dot can never appear in a real one, so the two never collide. */
export function sandboxSubdomain(subdomain: string): string {
  return `${subdomain}.sandbox`;
}

/** Tenant lifecycle: creation (with owner, keys and sandbox twin), reads and administrative updates. */
export class TenantsService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    tenants: TenantsRepository;
    users: UsersRepository;
    apiKeys: ApiKeysRepository;
    /** Told after an administrative change, so per-process caches (CORS origins) drop what they hold. */
    onTenantChanged?: (tenantId: string) => void;
    /** Told after a committed change, so this process's credential cache drops the tenant at once. */
    identityChanged?: (tags: string[]) => void;
  };
  constructor(deps: TenantsService['deps']) {
    this.deps = deps;
  }

  readonly #tierHooks: TierChangeHook[] = [];
  readonly #usageSources: TenantUsageSource[] = [];

  /** Adds a hook run inside the transaction of every tier change (subscription history, pausing workflows). */
  onTierChange(hook: TierChangeHook): void {
    this.#tierHooks.push(hook);
  }

  /** Adds counts to the admin view's usage of a tenant (the documents module adds its documents and bytes). */
  addUsage(source: TenantUsageSource): void {
    this.#usageSources.push(source);
  }

  /**
   * Changes a live tenant's tier (and its sandbox twin's) in the caller's transaction and runs the
   * tier hooks there; null when the tier already is `to`. Call `tierCommitted` after the commit.
   */
  async changeTier(trx: Executor, id: string, to: Tier, cause: TierChangeCause): Promise<TierChange | null> {
    const { database, clock, tenants } = this.deps;
    await lockTenant(trx, database.dialect, id);
    const current = await tenants.findById(trx, id);
    if (!current || current.sandboxOf !== null) throw errors.notFound('tenant', id);
    if (current.tier === to) return null;
    const change: TierChange = { tenantId: id, from: current.tier, to, cause, at: clock.now() };
    await tenants.update(trx, id, { tier: to }, change.at);
    for (const hook of this.#tierHooks) await hook(trx, change);
    return change;
  }

  /** After a committed tier change: this process's credential cache drops the tenant at once (other processes follow the change log). */
  tierCommitted(id: string): void {
    this.deps.identityChanged?.([identityTags.tenant(id)]);
  }

  /**
   * Creates a tenant, its owner, a live API key and its sandbox twin holding a test API key,
   * all in one transaction.
   */
  async create(input: CreateTenantInput, options: { apiKeys?: boolean } = {}): Promise<CreatedTenant> {
    const withKeys = options.apiKeys ?? true;
    const { database, clock, tenants, users, apiKeys } = this.deps;
    const now = clock.now();
    const passwordHash = await hashPassword(input.owner.password);
    const tenant: Tenant = {
      id: newId(now),
      name: input.name,
      subdomain: input.subdomain,
      tier: input.tier,
      status: 'active',
      corsOrigins: [],
      sandboxOf: null,
      createdAt: now,
      updatedAt: now,
    };
    const twin: Tenant = {
      ...tenant,
      id: newId(now),
      subdomain: sandboxSubdomain(input.subdomain),
      sandboxOf: tenant.id,
    };
    const owner: User = {
      id: newId(now),
      tenantId: tenant.id,
      email: input.owner.email,
      name: input.owner.name,
      role: 'owner',
      roles: [],
      status: 'active',
      notificationMail: true,
      passwordSet: true,
      createdAt: now,
      updatedAt: now,
    };
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    try {
      await database.db.transaction().execute(async (trx) => {
        await tenants.insert(trx, tenant);
        await tenants.insert(trx, twin);
        await users.insert(trx, owner, passwordHash);
        if (!withKeys) return;
        const keyBase = { name: 'Default', createdAt: now, lastUsedAt: null, revokedAt: null };
        await apiKeys.insert(
          trx,
          { ...keyBase, id: newId(now), tenantId: tenant.id, prefix: live.prefix, environment: 'live' },
          live.hash,
        );
        await apiKeys.insert(
          trx,
          { ...keyBase, id: newId(now), tenantId: twin.id, prefix: test.prefix, environment: 'test' },
          test.hash,
        );
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw errors.conflict(`The subdomain "${input.subdomain}" is already taken`, { field: 'subdomain' });
      throw error;
    }
    return { tenant, owner, apiKey: withKeys ? live.key : null, testApiKey: withKeys ? test.key : null };
  }

  async get(id: string): Promise<Tenant> {
    const tenant = await this.deps.tenants.findById(this.deps.database.db, id);
    if (!tenant || tenant.sandboxOf !== null) throw errors.notFound('tenant', id);
    return tenant;
  }

  async getWithUsage(id: string): Promise<{ tenant: Tenant; usage: Record<string, number> }> {
    const tenant = await this.get(id);
    const parts = await Promise.all([
      this.deps.tenants.usage(this.deps.database.db, id),
      ...this.#usageSources.map((source) => source(id)),
    ]);
    return { tenant, usage: Object.assign({}, ...parts) };
  }

  /** Sandbox twins last cleared (or, never cleared, created) at or before `cutoff`: the reset's work list. */
  sandboxesClearedBefore(cutoff: number): Promise<string[]> {
    return this.deps.tenants.sandboxesClearedBefore(this.deps.database.db, cutoff);
  }

  /** Records, in the reset's transaction, that a sandbox twin's data was cleared. */
  markSandboxCleared(trx: Executor, twinId: string): Promise<void> {
    return this.deps.tenants.markSandboxCleared(trx, twinId, this.deps.clock.now());
  }

  /** A tenant's settings, read in `db` (another module's transaction may ask). */
  async settings(db: Executor, tenantId: string): Promise<TenantSettings> {
    const settings = await this.deps.tenants.settings(db, tenantId);
    if (!settings) throw errors.notFound('tenant', tenantId);
    return settings;
  }

  /**
   * The AI review threshold in force for a tenant: its setting, while its tier has the task inbox
   * the reviews go to (workflows); null otherwise (a downgraded tenant's AI results are applied).
   */
  async aiReviewThreshold(db: Executor, tenantId: string): Promise<number | null> {
    const tenant = await this.deps.tenants.findById(db, tenantId);
    if (!tenant || !TIER_LIMITS[tenant.tier].features.workflows) return null;
    return (await this.settings(db, tenantId)).aiReviewThreshold;
  }

  /** The caller's tenant's settings (anyone of the tenant reads them). */
  settingsOf(auth: AuthContext): Promise<TenantSettings> {
    return this.settings(this.deps.database.db, auth.tenant.id);
  }

  /**
   * Changes the caller's tenant's settings (owners, admins and API keys). An AI review threshold
   * needs the task inbox its reviews go to, which comes with workflows (Team tier and above).
   */
  async updateSettings(auth: AuthContext, patch: Partial<TenantSettings>): Promise<TenantSettings> {
    requireTenantAdmin(auth, 'Only owners and admins may change tenant settings');
    if (patch.aiReviewThreshold != null) requireFeature(auth, 'workflows');
    const { database, tenants, clock } = this.deps;
    return database.db.transaction().execute(async (trx) => {
      const next = { ...(await this.settings(trx, auth.tenant.id)), ...patch };
      await tenants.updateSettings(trx, auth.tenant.id, next, clock.now());
      return next;
    });
  }

  list(page: { limit: number; offset: number }) {
    return this.deps.tenants.listLive(this.deps.database.db, page);
  }

  async update(
    id: string,
    patch: { name?: string; tier?: Tier; status?: TenantStatus; corsOrigins?: string[] },
  ): Promise<Tenant> {
    await this.get(id);
    const { tier, ...rest } = patch;
    await this.deps.database.db.transaction().execute(async (trx) => {
      if (tier !== undefined) await this.changeTier(trx, id, tier, ADMIN_CAUSE);
      await this.deps.tenants.update(trx, id, rest, this.deps.clock.now());
    });
    this.deps.identityChanged?.([identityTags.tenant(id)]);
    if (patch.corsOrigins !== undefined || patch.status !== undefined) this.deps.onTenantChanged?.(id);
    return this.get(id);
  }
}
