import { normaliseOrigin, type Tenant, type TenantSettings } from '../../../domain/tenant.ts';
import type { Selectable, Updateable } from 'kysely';
import type { TenantsTable } from '../identity.tables.ts';
import type { Executor } from '../../../db/executor.ts';
import { parseJson } from '../../../lib/json.ts';
import type { TenantStatus, Tier } from '../../../domain/tiers.ts';

export function toTenant(row: Omit<Selectable<TenantsTable>, 'sandbox_cleared_at' | 'settings'>): Tenant {
  return {
    id: row.id,
    name: row.name,
    subdomain: row.subdomain,
    tier: row.tier as Tier,
    status: row.status as TenantStatus,
    corsOrigins: parseJson<string[]>(row.cors_origins, []),
    sandboxOf: row.sandbox_of,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** SQL for tenants. Tenants are the one table not scoped by a tenant id: they are the scope. */
export class TenantsRepository {
  async insert(db: Executor, tenant: Tenant): Promise<void> {
    await db
      .insertInto('tenants')
      .values({
        id: tenant.id,
        name: tenant.name,
        subdomain: tenant.subdomain,
        tier: tenant.tier,
        status: tenant.status,
        cors_origins: JSON.stringify(tenant.corsOrigins),
        sandbox_of: tenant.sandboxOf,
        created_at: tenant.createdAt,
        updated_at: tenant.updatedAt,
      })
      .execute();
  }

  async findById(db: Executor, id: string): Promise<Tenant | null> {
    const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toTenant(row) : null;
  }

  async findBySubdomain(db: Executor, subdomain: string): Promise<Tenant | null> {
    const row = await db.selectFrom('tenants').selectAll().where('subdomain', '=', subdomain).executeTakeFirst();
    return row ? toTenant(row) : null;
  }

  async findSandboxTwin(db: Executor, liveTenantId: string): Promise<Tenant | null> {
    const row = await db.selectFrom('tenants').selectAll().where('sandbox_of', '=', liveTenantId).executeTakeFirst();
    return row ? toTenant(row) : null;
  }

  /** Live tenants only (sandbox twins are an implementation detail), newest first. */
  async listLive(db: Executor, page: { limit: number; offset: number }): Promise<{ rows: Tenant[]; total: number }> {
    const base = db.selectFrom('tenants').where('sandbox_of', 'is', null);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toTenant), total: Number(count.n) };
  }

  /** Applies a partial update to the tenant and, for tier and status, to its sandbox twin too. */
  async update(
    db: Executor,
    id: string,
    patch: Partial<Pick<Tenant, 'name' | 'tier' | 'status' | 'corsOrigins'>>,
    now: number,
  ): Promise<void> {
    const values: Updateable<TenantsTable> = { updated_at: now };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.tier !== undefined) values.tier = patch.tier;
    if (patch.status !== undefined) values.status = patch.status;
    if (patch.corsOrigins !== undefined) values.cors_origins = JSON.stringify(patch.corsOrigins);
    await db.updateTable('tenants').set(values).where('id', '=', id).execute();
    const twinValues: Updateable<TenantsTable> = { updated_at: now };
    if (patch.tier !== undefined) twinValues.tier = patch.tier;
    if (patch.status !== undefined) twinValues.status = patch.status;
    if (patch.corsOrigins !== undefined) twinValues.cors_origins = values.cors_origins!;
    await db.updateTable('tenants').set(twinValues).where('sandbox_of', '=', id).execute();
    if (patch.corsOrigins !== undefined) await this.replaceCorsOrigins(db, id, patch.corsOrigins);
  }

  /** Keeps the origin index (answering credential-less preflights) in step with the tenant's list. */
  async replaceCorsOrigins(db: Executor, tenantId: string, origins: string[]): Promise<void> {
    await db.deleteFrom('tenant_cors_origins').where('tenant_id', '=', tenantId).execute();
    const unique = [...new Set(origins.map(normaliseOrigin))];
    if (unique.length > 0) {
      await db
        .insertInto('tenant_cors_origins')
        .values(unique.map((origin) => ({ origin, tenant_id: tenantId })))
        .execute();
    }
  }

  /** Whether any active tenant allows this origin. */
  async isConfiguredOrigin(db: Executor, origin: string): Promise<boolean> {
    const row = await db
      .selectFrom('tenant_cors_origins as o')
      .innerJoin('tenants as t', 't.id', 'o.tenant_id')
      .select('o.tenant_id')
      .where('o.origin', '=', normaliseOrigin(origin))
      .where('t.status', '=', 'active')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Identity's usage counts for the admin view (other modules add theirs through `TenantsService.addUsage`). */
  async usage(db: Executor, tenantId: string): Promise<{ users: number; api_keys: number }> {
    const [users, keys] = await Promise.all([
      db
        .selectFrom('users')
        .where('tenant_id', '=', tenantId)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('api_keys')
        .where('tenant_id', '=', tenantId)
        .where('revoked_at', 'is', null)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { users: Number(users.n), api_keys: Number(keys.n) };
  }

  /** The tenant's settings (defaults for those never set); null when there is no such tenant. */
  async settings(db: Executor, tenantId: string): Promise<TenantSettings | null> {
    const row = await db.selectFrom('tenants').select('settings').where('id', '=', tenantId).executeTakeFirst();
    if (!row) return null;
    const stored = parseJson<Record<string, unknown>>(row.settings, {});
    const threshold = stored['ai_review_threshold'];
    return { aiReviewThreshold: typeof threshold === 'number' ? threshold : null };
  }

  async updateSettings(db: Executor, tenantId: string, settings: TenantSettings, now: number): Promise<void> {
    await db
      .updateTable('tenants')
      .set({ settings: JSON.stringify({ ai_review_threshold: settings.aiReviewThreshold }), updated_at: now })
      .where('id', '=', tenantId)
      .execute();
  }

  /** Sandbox twins last cleared (or, never cleared, created) at or before `cutoff`. */
  async sandboxesClearedBefore(db: Executor, cutoff: number): Promise<string[]> {
    const rows = await db
      .selectFrom('tenants')
      .select('id')
      .where('sandbox_of', 'is not', null)
      .where((eb) =>
        eb.or([
          eb('sandbox_cleared_at', '<=', cutoff),
          eb.and([eb('sandbox_cleared_at', 'is', null), eb('created_at', '<=', cutoff)]),
        ]),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  async markSandboxCleared(db: Executor, twinId: string, at: number): Promise<void> {
    await db
      .updateTable('tenants')
      .set({ sandbox_cleared_at: at })
      .where('id', '=', twinId)
      .where('sandbox_of', 'is not', null)
      .execute();
  }
}
