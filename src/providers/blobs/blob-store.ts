import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';

/** What a successful put stored. */
export interface StoredBlob {
  size: number;
  /** Hex SHA-256 of the bytes, computed while streaming. */
  sha256: string;
}

/** What the caller knows the bytes must be (a document's recorded hash and size). */
export interface ExpectedBytes {
  /** Hex SHA-256. */
  sha256: string;
  /** Lets a store choose how to prove the bytes (S3: one checked PUT or checked parts); absent when unknown. */
  size?: number;
}

export interface PutOptions {
  /** Stop and store nothing once the stream passes this many bytes (throws BlobTooLargeError). */
  maxBytes?: number;
  contentType?: string;
  /**
   * Keep the object only if the store can prove it holds exactly these bytes (each store says how);
   * otherwise throw BlobChecksumMismatchError with nothing stored.
   */
  expected?: ExpectedBytes;
  /**
   * Batch the durability work of many puts (an archive's thousands of files): a store that can
   * (the local folder) returns once the bytes are written and checked, publishes the key in the
   * background, and leaves the fsyncs (each file's, then each folder's once) to `batch.sync()`,
   * which waits for all of it. Until then a key may be missing, and after a crash may hold part of
   * its bytes: only for keys nobody reads, nor refers to in a committed row, before `sync()`
   * resolved, and that a crash's cleanup deletes (the import's journal). Stores that cannot
   * defer ignore it.
   */
  batch?: SyncBatch;
  /**
   * With `batch`, for `putChunks`: the producer never reuses a chunk's memory (fresh buffers from a
   * stream), so a store may keep a chunk after `write` resolved and write it in the background:
   * the producer goes on with the next chunk, and the next blob, while the disk catches up. The
   * bytes so held are bounded (per put, and across the batch by `SyncBatch.maxBytes`).
   */
  handsOverChunks?: boolean;
}

/**
 * Durability work deferred by puts made with `{ batch }` (PutOptions), awaited once by `sync()`.
 * Stores add what they deferred; a caller that gives up still calls `sync()` (ignoring its error)
 * before deleting keys, so no deferred publication lands after the delete.
 */
export class SyncBatch {
  readonly #pending = new Set<Promise<void>>();
  readonly #finally = new Map<string, { work: () => Promise<void>; phase: 0 | 1 }>();
  #failure: unknown = null;
  /** At most this many deferred puts in flight: a put waits (back-pressure) beyond it. */
  readonly limit: number;
  /** Nor more than this many bytes of chunks held by them (`handsOverChunks`): the process's memory. */
  readonly maxBytes: number;
  #bytes = 0;

  constructor(limit = 16, maxBytes = 16 * 1024 * 1024) {
    this.limit = limit;
    this.maxBytes = maxBytes;
  }

  /**
   * Runs `work` in the background, holding `bytes` of memory until it settles; resolves once fewer
   * than `limit` are in flight and they hold less than `maxBytes`.
   */
  async defer(work: Promise<void>, bytes = 0): Promise<void> {
    this.#bytes += bytes;
    const settled = () => {
      this.#bytes -= bytes;
      this.#pending.delete(tracked);
    };
    const tracked = work.then(settled, (error: unknown) => {
      this.#failure ??= error;
      settled();
    });
    this.#pending.add(tracked);
    while (this.#pending.size >= this.limit || (this.#bytes >= this.maxBytes && this.#pending.size > 0))
      await Promise.race(this.#pending);
  }

  readonly #once = new Map<string, Promise<unknown>>();

  /** `work`'s promise, started by the first caller of `id` in this batch (a folder created once). */
  once<T>(id: string, work: () => Promise<T>): Promise<T> {
    let p = this.#once.get(id) as Promise<T> | undefined;
    if (!p) {
      p = work();
      this.#once.set(id, p);
      p.catch(() => this.#once.delete(id));
    }
    return p;
  }

  /**
   * Work done once at `sync()`, after every deferred put (one per `id`): `phase` 0 (a file's
   * fsync) runs `SYNC_LANES` at a time, then phase 1 (a folder's fsync).
   */
  atSync(id: string, work: () => Promise<void>, phase: 0 | 1 = 1): void {
    if (!this.#finally.has(id)) this.#finally.set(id, { work, phase });
  }

  /** Waits for every deferred put, then the once-per-batch work; throws the first failure. */
  async sync(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
    const work = [...this.#finally.values()];
    this.#finally.clear();
    for (const phase of [0, 1]) {
      await inLanes(
        work.filter((w) => w.phase === phase),
        phase === 0 ? SYNC_LANES : 1,
        async (w) => {
          try {
            await w.work();
          } catch (error) {
            this.#failure ??= error;
          }
        },
      );
    }
    const failure = this.#failure;
    this.#failure = null;
    if (failure) throw failure;
  }
}

/** fsyncs in flight at `SyncBatch.sync()`: the thread pool's size (4), which they would otherwise hold. */
export const SYNC_LANES = 4;

/** `work` on every item, `lanes` at a time; after a failure starts no more, and rejects with it once every lane stopped. */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (next < items.length && !failed) {
      try {
        await work(items[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(lanes, items.length) }, lane));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * A source of chunks for `putChunks`: calls `write` for each and awaits it; the chunk's memory may
 * be reused once `write` resolved (the store has written or copied it).
 */
export type ChunkProducer = (write: (chunk: Uint8Array) => Promise<void>) => Promise<void>;

/** What `head` knows of a stored blob. */
export interface BlobHead {
  size: number;
  /**
   * Hex SHA-256 of the whole object as the store checked it on arrival (S3 with checksums); absent
   * when the store keeps none, or only a checksum of parts.
   */
  sha256?: string;
}

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where file bytes live: a local folder or S3-compatible storage. Keys are opaque strings chosen
 * by callers (`tenants/<id>/documents/<id>`); implementations never hold a whole file in memory.
 */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Streams `body` under `key`; on any failure (including too large or an aborted source) nothing is left stored. */
  put(key: string, body: Readable, options?: PutOptions): Promise<StoredBlob>;
  /** Streams the bytes (or a range of them); throws BlobNotFoundError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size (and recorded SHA-256, when the store keeps one) of the blob, or null when absent. */
  head(key: string): Promise<BlobHead | null>;
  /** Removes the blob; absent is not an error. */
  delete(key: string): Promise<void>;
  /** Throws when the store does not answer (readiness). */
  ping(): Promise<void>;
  /**
   * Bulk read without a stream: the bytes in order, each chunk valid only until `onChunk`'s
   * promise resolves (the store reuses its buffers: no allocation nor garbage per chunk).
   * Returns the byte count; throws BlobNotFoundError when absent.
   */
  getChunks(key: string, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<number>;
  /** `put` from a producer of chunks (ChunkProducer) instead of a stream; same guarantees as `put`. */
  putChunks(key: string, produce: ChunkProducer, options?: PutOptions): Promise<StoredBlob>;
}

/** `getChunks` over `get`'s stream, for stores without a faster path. */
export async function getChunksFromStream(
  stream: Readable,
  onChunk: (chunk: Uint8Array) => void | Promise<void>,
): Promise<number> {
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    await onChunk(chunk);
  }
  return size;
}

/** The stream `put` takes, fed by a ChunkProducer (each chunk copied: the producer reuses its buffers). */
export function chunkStream(produce: ChunkProducer): Readable {
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  void produce(async (chunk) => {
    if (out.destroyed) throw new Error('the store stopped reading');
    if (!out.write(Buffer.from(chunk))) await Promise.race([once(out, 'drain'), once(out, 'close')]);
  }).then(
    () => out.end(),
    (error: unknown) => out.destroy(error as Error),
  );
  return out;
}

export class BlobTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`blob exceeds ${limit} bytes`);
    this.name = 'BlobTooLargeError';
    this.limit = limit;
  }
}

/** The stored bytes would not be the expected ones (corrupted on the way, or a source that changed). */
export class BlobChecksumMismatchError extends Error {
  constructor(key: string, detail: string) {
    super(`checksum mismatch for ${key}: ${detail}`);
    this.name = 'BlobChecksumMismatchError';
  }
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

/** A key that is not a safe relative path (empty, absolute, `.`/`..` segments, backslash, NUL). */
export class InvalidBlobKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/** A range that cannot be served: negative, start after end, or starting past the last byte. */
export class BlobRangeError extends Error {
  constructor(range: ByteRange, size?: number) {
    super(`unsatisfiable range ${range.start}-${range.end}${size === undefined ? '' : ` of ${size} bytes`}`);
    this.name = 'BlobRangeError';
  }
}

/** How `actual` differs from `expected`, or null when they agree. */
export function mismatchOf(expected: ExpectedBytes, actual: StoredBlob): string | null {
  if (expected.size !== undefined && expected.size !== actual.size)
    return `expected ${expected.size} bytes, got ${actual.size}`;
  if (expected.sha256 !== actual.sha256) return `expected sha256 ${expected.sha256}, got ${actual.sha256}`;
  return null;
}

const MAX_KEY_BYTES = 1024;

/**
 * Checks a key is a plain relative path (`tenants/<id>/documents/<id>`). Both adapters apply it, so
 * a key valid on one store is valid on the other and a storage migration never meets a surprise.
 */
export function assertValidBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidBlobKeyError(String(key), 'empty');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidBlobKeyError(key, `longer than ${MAX_KEY_BYTES} bytes`);
  if (key.includes('\0')) throw new InvalidBlobKeyError(key, 'contains NUL');
  if (key.includes('\\')) throw new InvalidBlobKeyError(key, 'contains a backslash');
  if (key.startsWith('/')) throw new InvalidBlobKeyError(key, 'absolute path');
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new InvalidBlobKeyError(key, 'empty, "." or ".." path segment');
    }
  }
}

/** Checks the shape of a range (not the blob size, which only the store knows). */
export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BlobRangeError(range);
  }
}
