import type { Selectable } from 'kysely';
import { compiledOnce } from '../../../db/compiled-once.ts';
import type { Executor } from '../../../db/executor.ts';
import type { ApiKeysTable } from '../identity.tables.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import { toTenant } from '../tenants/tenants.repository.ts';
import type { ApiKeyEnvironment } from './api-key-secrets.ts';

export interface ApiKey {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  environment: ApiKeyEnvironment;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

type ApiKeyRow = Pick<
  Selectable<ApiKeysTable>,
  'id' | 'tenant_id' | 'name' | 'prefix' | 'environment' | 'created_at' | 'last_used_at' | 'revoked_at'
>;

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment as ApiKeyEnvironment,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** SQL for API keys. */
export class ApiKeysRepository {
  /** The key candidates of a lookup prefix with their tenant: the hot path of every API-key request, in one round trip. */
  private readonly candidatesQuery = compiledOnce((db: Executor, prefix: string, now: number) =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('tenants as t', 't.id', 'k.tenant_id')
      .select([
        'k.id',
        'k.tenant_id',
        'k.name',
        'k.prefix',
        'k.environment',
        'k.created_at',
        'k.last_used_at',
        'k.revoked_at',
        'k.key_hash',
        'k.previous_key_hash',
        't.name as t_name',
        't.subdomain as t_subdomain',
        't.tier as t_tier',
        't.status as t_status',
        't.cors_origins as t_cors_origins',
        't.sandbox_of as t_sandbox_of',
        't.created_at as t_created_at',
        't.updated_at as t_updated_at',
      ])
      .where('k.revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('k.prefix', '=', prefix),
          eb.and([eb('k.previous_prefix', '=', prefix), eb('k.previous_expires_at', '>', now)]),
        ]),
      ),
  );

  async insert(db: Executor, key: ApiKey, hash: string): Promise<void> {
    await db
      .insertInto('api_keys')
      .values({
        id: key.id,
        tenant_id: key.tenantId,
        name: key.name,
        prefix: key.prefix,
        key_hash: hash,
        environment: key.environment,
        created_at: key.createdAt,
        last_used_at: key.lastUsedAt,
        revoked_at: key.revokedAt,
      })
      .execute();
  }

  /**
   * Candidate rows for a presented key (tenant unknown yet: the key is what names it): keys whose
   * current prefix matches, and rotated keys whose previous secret is still in its grace period.
   * `hash` is the hash to compare for that candidate.
   */
  async findActiveByPrefix(
    db: Executor,
    prefix: string,
    now: number,
  ): Promise<(ApiKey & { hash: string; tenant: Tenant })[]> {
    const rows = await this.candidatesQuery(db, prefix, now);
    return rows.map((r) => ({
      ...toApiKey(r),
      hash: r.prefix === prefix ? r.key_hash : r.previous_key_hash!,
      tenant: toTenant({
        id: r.tenant_id,
        name: r.t_name,
        subdomain: r.t_subdomain,
        tier: r.t_tier,
        status: r.t_status,
        cors_origins: r.t_cors_origins,
        sandbox_of: r.t_sandbox_of,
        created_at: r.t_created_at,
        updated_at: r.t_updated_at,
      }),
    }));
  }

  /** Active keys of the given tenants (a live tenant and its sandbox twin), newest first. */
  async listActive(
    db: Executor,
    tenantIds: string[],
    page: { limit: number; offset: number },
  ): Promise<{ rows: ApiKey[]; total: number }> {
    const base = db.selectFrom('api_keys').where('tenant_id', 'in', tenantIds).where('revoked_at', 'is', null);
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
    return { rows: rows.map(toApiKey), total: Number(count.n) };
  }

  async findActive(db: Executor, tenantIds: string[], id: string): Promise<ApiKey | null> {
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', 'in', tenantIds)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row ? toApiKey(row) : null;
  }

  async revoke(db: Executor, tenantId: string, id: string, at: number): Promise<void> {
    await db
      .updateTable('api_keys')
      .set({ revoked_at: at, previous_expires_at: null })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Gives a key a new secret; the current one becomes the previous, valid until `previousExpiresAt` (null: at once invalid). */
  async rotate(
    db: Executor,
    tenantId: string,
    id: string,
    next: { prefix: string; hash: string },
    previousExpiresAt: number | null,
  ): Promise<void> {
    await db
      .updateTable('api_keys')
      .set((eb) => ({
        previous_prefix: previousExpiresAt === null ? null : eb.ref('prefix'),
        previous_key_hash: previousExpiresAt === null ? null : eb.ref('key_hash'),
        previous_expires_at: previousExpiresAt,
        prefix: next.prefix,
        key_hash: next.hash,
      }))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async touchLastUsed(db: Executor, tenantId: string, id: string, at: number): Promise<void> {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }
}
