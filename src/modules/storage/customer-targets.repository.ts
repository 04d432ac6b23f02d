import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { StorageCustomerTargetsTable } from './storage.tables.ts';

/** The customer's own S3-compatible bucket, accepted after a probe. */
export interface CustomerTarget {
  tenantId: string;
  endpoint: string | null;
  bucket: string;
  region: string;
  prefix: string;
  accessKeyId: string;
  /** AES-256-GCM sealed secret access key. */
  secretSealed: string;
  /** Which encryption key sealed it (keys rotate). */
  keyId: string;
  forcePathStyle: boolean;
  verifiedAt: number;
  createdAt: number;
  /** Strictly increasing per tenant: processes key their cached client by it. */
  updatedAt: number;
}

export function toCustomerTarget(row: Selectable<StorageCustomerTargetsTable>): CustomerTarget {
  return {
    tenantId: row.tenant_id,
    endpoint: row.endpoint,
    bucket: row.bucket,
    region: row.region,
    prefix: row.prefix,
    accessKeyId: row.access_key_id,
    secretSealed: row.secret_sealed,
    keyId: row.key_id,
    forcePathStyle: Number(row.force_path_style) === 1,
    verifiedAt: row.verified_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class CustomerTargetsRepository {
  async find(db: Executor, tenantId: string): Promise<CustomerTarget | null> {
    const row = await db
      .selectFrom('storage_customer_targets')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row ? toCustomerTarget(row) : null;
  }

  async save(db: Executor, target: CustomerTarget): Promise<void> {
    const changes = {
      endpoint: target.endpoint,
      bucket: target.bucket,
      region: target.region,
      prefix: target.prefix,
      access_key_id: target.accessKeyId,
      secret_sealed: target.secretSealed,
      key_id: target.keyId,
      force_path_style: target.forcePathStyle ? 1 : 0,
      verified_at: target.verifiedAt,
      updated_at: target.updatedAt,
    };
    await db
      .insertInto('storage_customer_targets')
      .values({ tenant_id: target.tenantId, created_at: target.createdAt, ...changes })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(changes))
      .execute();
  }
}
