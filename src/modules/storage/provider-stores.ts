import fsp from 'node:fs/promises';
import type http from 'node:http';
import type https from 'node:https';
import path from 'node:path';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/database.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { blobStoreConfigFromUrl } from '../../providers/blobs/blob-store-url.ts';
import { createBlobStore } from '../../providers/blobs/create-blob-store.ts';
import { LocalBlobStore } from '../../providers/blobs/local-blob-store.ts';
import type { S3BlobStore } from '../../providers/blobs/s3-blob-store.ts';
import type { CredentialsBox } from './credentials-box.ts';
import type { CustomerTargetsRepository } from './customer-targets.repository.ts';
import type { ProviderName } from './storage-providers.ts';

/** A customer's bucket as the administrator gives it (secret in the clear, never stored so). */
export interface CustomerSettings {
  endpoint: string | null;
  bucket: string;
  region: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export interface ProviderStoresDeps {
  config: Config;
  database: Database;
  shared: BlobStore;
  customerTargets: CustomerTargetsRepository;
  credentials: CredentialsBox;
  /** The guarded outbound agents: a customer's endpoint may not reach private addresses. */
  agents: { http: http.Agent; https: https.Agent };
}

/** Wraps the store of a provider (fault drills and tests: a store that fails or corrupts on demand). */
export type StoreInterceptor = (tenantId: string, provider: ProviderName, store: BlobStore) => BlobStore;

/** Builds (once per process and version) the blob store behind a tenant's provider. */
export class ProviderStores {
  readonly #deps: ProviderStoresDeps;
  readonly #cache = new Map<string, Promise<BlobStore>>();
  #intercept: StoreInterceptor | null = null;

  constructor(deps: ProviderStoresDeps) {
    this.#deps = deps;
  }

  get shared(): BlobStore {
    return this.#deps.shared;
  }

  /** Whether the operator configured dedicated stores (DEDICATED_STORAGE_URL). */
  get dedicatedConfigured(): boolean {
    return this.#deps.config.storage.dedicatedUrl !== null;
  }

  /** Installs (or with null removes) a wrapper around every store this process hands out. */
  intercept(interceptor: StoreInterceptor | null): void {
    this.#intercept = interceptor;
  }

  /** `customerVersion` (the target's updated_at) avoids a lookup when the caller already read it. */
  async storeFor(tenantId: string, provider: ProviderName, customerVersion?: number | null): Promise<BlobStore> {
    const store = await this.#storeFor(tenantId, provider, customerVersion);
    return this.#intercept ? this.#intercept(tenantId, provider, store) : store;
  }

  async #storeFor(tenantId: string, provider: ProviderName, customerVersion?: number | null): Promise<BlobStore> {
    if (provider === 'shared') return this.#deps.shared;
    if (provider === 'dedicated') return this.#cached(`${tenantId}:dedicated`, () => this.#dedicated(tenantId));
    const version =
      customerVersion ?? (await this.#deps.customerTargets.find(this.#deps.database.db, tenantId))?.updatedAt;
    if (version === undefined || version === null)
      throw new Error(`tenant ${tenantId} has no customer storage configured`);
    return this.#cached(`${tenantId}:customer:${version}`, () => this.#customer(tenantId));
  }

  /**
   * A store for settings not saved yet (the probe of `PUT /admin/storage/config`). The S3 adapter
   * (and the AWS SDK with it) is loaded only when a tenant uses S3, as createBlobStore does.
   */
  async customerStore(s: CustomerSettings): Promise<S3BlobStore> {
    const { agents } = this.#deps;
    const { S3BlobStore } = await import('../../providers/blobs/s3-blob-store.ts');
    return new S3BlobStore({
      endpoint: s.endpoint,
      bucket: s.bucket,
      region: s.region,
      prefix: s.prefix,
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      forcePathStyle: s.forcePathStyle,
      clientConfig: { requestHandler: { httpAgent: agents.http, httpsAgent: agents.https }, maxAttempts: 2 },
    });
  }

  /** A description of the dedicated store for display (credentials never shown). */
  dedicatedDescription(tenantId: string): string | null {
    const url = this.#deps.config.storage.dedicatedUrl;
    if (!url) return null;
    const filled = new URL(url.replaceAll('{tenant_id}', tenantId));
    filled.search = '';
    filled.username = '';
    filled.password = '';
    return filled.toString();
  }

  async #dedicated(tenantId: string): Promise<BlobStore> {
    const { config } = this.#deps;
    if (!config.storage.dedicatedUrl) throw new Error('no dedicated storage is configured (DEDICATED_STORAGE_URL)');
    const s3 = config.blobs.driver === 's3' ? config.blobs : null;
    return createBlobStore(
      blobStoreConfigFromUrl(config.storage.dedicatedUrl, tenantId, {
        endpoint: s3?.endpoint ?? null,
        region: s3?.region ?? 'us-east-1',
        accessKeyId: config.storage.dedicatedAccessKeyId ?? s3?.accessKeyId ?? null,
        secretAccessKey: config.storage.dedicatedSecretAccessKey ?? s3?.secretAccessKey ?? null,
        forcePathStyle: s3?.forcePathStyle ?? false,
      }),
    );
  }

  async #customer(tenantId: string): Promise<BlobStore> {
    const target = await this.#deps.customerTargets.find(this.#deps.database.db, tenantId);
    if (!target) throw new Error(`tenant ${tenantId} has no customer storage configured`);
    const secretAccessKey = await this.#deps.credentials.open({ sealed: target.secretSealed, keyId: target.keyId });
    return this.customerStore({
      endpoint: target.endpoint,
      bucket: target.bucket,
      region: target.region,
      prefix: target.prefix,
      accessKeyId: target.accessKeyId,
      secretAccessKey,
      forcePathStyle: target.forcePathStyle,
    });
  }

  /** Closes the S3 clients this process made (shutdown). */
  async close(): Promise<void> {
    const stores = await Promise.allSettled(this.#cache.values());
    this.#cache.clear();
    for (const s of stores)
      if (s.status === 'fulfilled' && 'destroy' in s.value && typeof s.value.destroy === 'function') s.value.destroy();
  }

  #cached(key: string, build: () => Promise<BlobStore>): Promise<BlobStore> {
    let store = this.#cache.get(key);
    if (!store) {
      store = build().catch((error: unknown) => {
        this.#cache.delete(key);
        throw error;
      });
      this.#cache.set(key, store);
    }
    return store;
  }
}

/** Free bytes where a local store writes; null when unknown (object storage has no fixed size). */
export async function freeBytesOf(store: BlobStore): Promise<number | null> {
  if (!(store instanceof LocalBlobStore)) return null;
  let dir = store.root;
  for (;;) {
    try {
      const stat = await fsp.statfs(dir);
      return stat.bavail * stat.bsize;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return null;
      dir = parent;
    }
  }
}
