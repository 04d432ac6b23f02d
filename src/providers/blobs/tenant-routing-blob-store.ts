import type { Readable } from 'node:stream';
import {
  type BlobHead,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  type ChunkProducer,
  type PutOptions,
  type StoredBlob,
} from './blob-store.ts';

/** Where one tenant's blobs go and are looked for (docs/storage.md). */
export interface BlobPlacement {
  /** New bytes are written here. */
  write: BlobStore;
  /** Stores looked in, in order, until one has the key; includes `write`. */
  read: readonly BlobStore[];
}

/** Answers a tenant's placement; the storage module provides it (null: the shared store only). */
export type PlacementResolver = (tenantId: string) => Promise<BlobPlacement | null>;

const TENANT_KEY = /^tenants\/([^/]+)\//;

/**
 * The platform's blob store: routes each key of `tenants/<id>/...` to that tenant's provider.
 * During a storage migration writes go to the new store, reads look wherever the object is and
 * deletes remove every copy, so the modules that store bytes never know a migration runs.
 */
export class TenantRoutingBlobStore implements BlobStore {
  readonly shared: BlobStore;
  #resolve: PlacementResolver = async () => null;

  constructor(shared: BlobStore) {
    this.shared = shared;
  }

  get kind(): BlobStore['kind'] {
    return this.shared.kind;
  }

  /** Installs the storage module's resolver (before it, everything is in the shared store). */
  route(resolver: PlacementResolver): void {
    this.#resolve = resolver;
  }

  async put(key: string, body: Readable, options?: PutOptions): Promise<StoredBlob> {
    const placement = await this.#placementOf(key).catch((error: unknown) => {
      body.destroy();
      throw error;
    });
    return (placement?.write ?? this.shared).put(key, body, options);
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const stores = await this.#readOrder(key);
    for (const store of stores.slice(0, -1)) {
      try {
        return await store.get(key, range);
      } catch (error) {
        if (!(error instanceof BlobNotFoundError)) throw error;
      }
    }
    return stores.at(-1)!.get(key, range);
  }

  async putChunks(key: string, produce: ChunkProducer, options?: PutOptions): Promise<StoredBlob> {
    const placement = await this.#placementOf(key);
    return (placement?.write ?? this.shared).putChunks(key, produce, options);
  }

  async getChunks(key: string, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<number> {
    const stores = await this.#readOrder(key);
    for (const store of stores.slice(0, -1)) {
      try {
        return await store.getChunks(key, onChunk);
      } catch (error) {
        // Only "not here": once a chunk was handed on, a failure is the read's own.
        if (!(error instanceof BlobNotFoundError)) throw error;
      }
    }
    return stores.at(-1)!.getChunks(key, onChunk);
  }

  async head(key: string): Promise<BlobHead | null> {
    for (const store of await this.#readOrder(key)) {
      const found = await store.head(key);
      if (found) return found;
    }
    return null;
  }

  async delete(key: string): Promise<void> {
    const placement = await this.#placementOf(key);
    const stores = placement ? new Set([placement.write, ...placement.read]) : [this.shared];
    await Promise.all([...stores].map((store) => store.delete(key)));
  }

  ping(): Promise<void> {
    return this.shared.ping();
  }

  async #readOrder(key: string): Promise<readonly BlobStore[]> {
    const placement = await this.#placementOf(key);
    return placement && placement.read.length > 0 ? placement.read : [this.shared];
  }

  #placementOf(key: string): Promise<BlobPlacement | null> {
    const tenantId = TENANT_KEY.exec(key)?.[1];
    return tenantId ? this.#resolve(tenantId) : Promise.resolve(null);
  }
}
