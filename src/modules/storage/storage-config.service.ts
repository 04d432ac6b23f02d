import type { Database } from '../../db/database.ts';
import type { TenantDirectory } from '../../domain/tenant.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, errors, type FieldError } from '../../lib/errors.ts';
import { OutboundError } from '../../providers/outbound/outbound-http.ts';
import type { CredentialsBox } from './credentials-box.ts';
import type { CustomerTarget, CustomerTargetsRepository } from './customer-targets.repository.ts';
import type { MigrationsRepository } from './migrations.repository.ts';
import { probeStore } from './probe.ts';
import type { CustomerSettings, ProviderStores } from './provider-stores.ts';
import type { TenantStorage, TenantStorageRepository } from './tenant-storage.repository.ts';
import { SHARED_ONLY } from './tenant-storage.repository.ts';

/** A tenant's storage as `GET /admin/storage/config/{tenant_id}` shows it. */
export interface StorageConfigView {
  tenantId: string;
  placement: TenantStorage;
  dedicatedLocation: string | null;
  customer: CustomerTarget | null;
}

export interface StorageConfigDeps {
  database: Database;
  clock: Clock;
  tenants: TenantDirectory;
  stores: ProviderStores;
  tenantStorage: TenantStorageRepository;
  customerTargets: CustomerTargetsRepository;
  migrations: MigrationsRepository;
  credentials: CredentialsBox;
}

/** Per-tenant storage targets (contract §11): the view, and the customer's bucket, probed before it is kept. */
export class StorageConfigService {
  readonly #deps: StorageConfigDeps;

  constructor(deps: StorageConfigDeps) {
    this.#deps = deps;
  }

  async view(tenantId: string): Promise<StorageConfigView> {
    await this.assertTenant(tenantId);
    const db = this.#deps.database.db;
    return {
      tenantId,
      placement: (await this.#deps.tenantStorage.find(db, tenantId)) ?? SHARED_ONLY,
      dedicatedLocation: this.#deps.stores.dedicatedDescription(tenantId),
      customer: (await this.#deps.customerTargets.find(db, tenantId)) ?? null,
    };
  }

  /** Sets the customer target after a probe object was written, read back and deleted. */
  async setCustomer(tenantId: string, settings: CustomerSettings): Promise<StorageConfigView> {
    await this.assertTenant(tenantId);
    await this.assertCustomerNotInUse(tenantId);
    await this.probe(tenantId, settings);
    const { database, clock, customerTargets, credentials } = this.#deps;
    const sealed = await credentials.seal(settings.secretAccessKey);
    const now = clock.now();
    const existing = await customerTargets.find(database.db, tenantId);
    await customerTargets.save(database.db, {
      tenantId,
      endpoint: settings.endpoint,
      bucket: settings.bucket,
      region: settings.region,
      prefix: settings.prefix,
      accessKeyId: settings.accessKeyId,
      secretSealed: sealed.sealed,
      keyId: sealed.keyId,
      forcePathStyle: settings.forcePathStyle,
      verifiedAt: now,
      createdAt: existing?.createdAt ?? now,
      // Strictly increasing: processes key their cached client by it.
      updatedAt: Math.max(now, (existing?.updatedAt ?? 0) + 1),
    });
    return this.view(tenantId);
  }

  async assertTenant(tenantId: string): Promise<void> {
    const tenant = await this.#deps.tenants.findById(tenantId).catch(() => null);
    if (!tenant || tenant.sandboxOf !== null) throw errors.notFound('tenant', tenantId);
  }

  /** Changing the bucket under files that live in it (or are moving there) would lose them. */
  private async assertCustomerNotInUse(tenantId: string): Promise<void> {
    const db = this.#deps.database.db;
    const placement = await this.#deps.tenantStorage.find(db, tenantId);
    const running = await this.#deps.migrations.running(db, tenantId);
    const inUse = placement && (placement.write === 'customer' || placement.read.includes('customer'));
    const moving = running && (running.sourceProvider === 'customer' || running.targetProvider === 'customer');
    if (inUse || moving)
      throw errors.conflict(
        "The customer storage holds or is receiving this tenant's files; migrate away from it before changing it",
      );
  }

  private async probe(tenantId: string, settings: CustomerSettings): Promise<void> {
    const store = await this.#deps.stores.customerStore(settings);
    try {
      await probeStore(store, tenantId);
    } catch (error) {
      throw errors.validation([probeFailure(error)], `The storage did not accept a probe object: ${describe(error)}`);
    } finally {
      store.destroy();
    }
  }
}

/** Which field a refused probe points at, for the 400 answer. */
function probeFailure(error: unknown): FieldError {
  const name = (error as { name?: string; Code?: string } | null)?.name ?? '';
  const message = describe(error);
  if (name === 'NoSuchBucket') return { field: 'bucket', message: 'the bucket does not exist' };
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'Forbidden'].includes(name)) {
    return { field: 'access_key_id', message: `the credentials were refused (${name})` };
  }
  if (error instanceof OutboundError || error instanceof AppError) return { field: 'endpoint', message };
  return { field: 'endpoint', message: `the storage could not be used: ${message}` };
}

function describe(error: unknown): string {
  const e = error as { name?: string; message?: string } | null;
  return e?.message ? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}` : String(error);
}
