import type { Readable } from 'node:stream';
import {
  type BlobHead,
  type BlobStore,
  type ByteRange,
  type ChunkProducer,
  chunkStream,
  getChunksFromStream,
  type PutOptions,
  type StoredBlob,
} from '../../../src/providers/blobs/blob-store.ts';
import { HashingCounter } from '../../../src/providers/blobs/hashing-counter.ts';
import { FirstByteFlip } from '../../support/s3-server-protocol.ts';

/**
 * A store that misbehaves on demand, in front of a real one: puts of chosen keys fail, or land
 * corrupted while reporting the hash of what was sent (as a disk or network fault would), or wait
 * at a gate until released. Everything else passes through.
 */
export class FaultyBlobStore implements BlobStore {
  readonly inner: BlobStore;
  readonly kind: BlobStore['kind'];
  /** Keys whose puts throw. */
  failing = new Set<string>();
  /** Keys whose next put lands corrupted (one corruption per key). */
  corruptOnce = new Set<string>();
  /** Keys whose puts wait for `release()`. */
  held = new Set<string>();
  puts = new Map<string, number>();
  #gate: { promise: Promise<void>; open: () => void } = gate();

  constructor(inner: BlobStore) {
    this.inner = inner;
    this.kind = inner.kind;
  }

  release(): void {
    this.held.clear();
    this.#gate.open();
    this.#gate = gate();
  }

  async put(key: string, body: Readable, options?: PutOptions): Promise<StoredBlob> {
    this.puts.set(key, (this.puts.get(key) ?? 0) + 1);
    if (this.held.has(key)) await this.#gate.promise;
    if (this.failing.has(key)) {
      body.destroy();
      throw new Error(`injected fault: put of ${key} refused`);
    }
    if (!this.corruptOnce.delete(key)) return this.inner.put(key, body, options);
    const sent = new HashingCounter();
    const corrupted = body.pipe(sent).pipe(new FirstByteFlip());
    await this.inner.put(key, corrupted, options);
    return { size: sent.bytesSeen, sha256: sent.digest() };
  }

  /** Through `put` (as a stream), so the same faults apply. */
  putChunks(key: string, produce: ChunkProducer, options?: PutOptions): Promise<StoredBlob> {
    return this.put(key, chunkStream(produce), options);
  }

  async getChunks(key: string, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<number> {
    return getChunksFromStream(await this.get(key), onChunk);
  }

  get(key: string, range?: ByteRange): Promise<Readable> {
    return this.inner.get(key, range);
  }

  head(key: string): Promise<BlobHead | null> {
    return this.inner.head(key);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
