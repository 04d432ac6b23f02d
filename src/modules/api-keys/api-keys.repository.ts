import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../../db/schema.ts';
import type { Executor } from '../../jobs/job-types.ts';
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

export function toApiKey(row: Selectable<ApiKeysTable>): ApiKey {
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

  /** Candidate rows for a presented key (tenant unknown yet: the key is what names it). */
  async findActiveByPrefix(db: Executor, prefix: string): Promise<(ApiKey & { hash: string })[]> {
    const rows = await db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).where('revoked_at', 'is', null).execute();
    return rows.map((r) => ({ ...toApiKey(r), hash: r.key_hash }));
  }

  async touchLastUsed(db: Executor, tenantId: string, id: string, at: number): Promise<void> {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }
}
