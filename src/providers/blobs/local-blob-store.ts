import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertValidBlobKey,
  assertValidRange,
  BlobChecksumMismatchError,
  type BlobHead,
  BlobNotFoundError,
  BlobRangeError,
  type BlobStore,
  BlobTooLargeError,
  type ByteRange,
  type ChunkProducer,
  InvalidBlobKeyError,
  inLanes,
  mismatchOf,
  type PutOptions,
  type StoredBlob,
  SYNC_LANES,
  type SyncBatch,
} from './blob-store.ts';
import { HashingCounter, IO_CHUNK } from './hashing-counter.ts';
import { syncFilesystem } from './syncfs.ts';

/** Where half-written uploads live, inside the root so the final rename never crosses filesystems. */
const TMP_DIR = '.tmp';

/**
 * Blobs as files under one root folder (`<DATA_DIR>/blobs`). Writes go to `<root>/.tmp`, are
 * fsynced, then renamed into place, so a reader sees either the old file or the whole new one.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly root: string;
  readonly #tmp: string;
  #ready: Promise<void> | undefined;
  /** Per batch, what its puts published here: made durable at `sync()` by #makeDurable, once. */
  readonly #published = new WeakMap<SyncBatch, { files: string[]; dirs: Set<string> }>();

  constructor(root: string) {
    this.root = path.resolve(root);
    this.#tmp = path.join(this.root, TMP_DIR);
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<StoredBlob> {
    let target: string;
    try {
      target = this.#pathOf(key);
      await this.#ensureDirs();
    } catch (error) {
      body.destroy();
      throw error;
    }
    const tmp = path.join(this.#tmp, randomUUID());
    const counter = new HashingCounter(options.maxBytes);
    try {
      // `flush` fsyncs the file before its descriptor closes, so the rename publishes durable bytes
      // (in a batch, the fsync comes in the background, still before the rename).
      const out = fs.createWriteStream(tmp, { flags: 'wx', flush: !options.batch, highWaterMark: IO_CHUNK });
      await pipeline(body, counter, out);
      const stored = { size: counter.bytesSeen, sha256: counter.digest() };
      // The hash is of the very buffers written and fsynced: checked before the rename, a mismatch is never published.
      const mismatch = options.expected ? mismatchOf(options.expected, stored) : null;
      if (mismatch) throw new BlobChecksumMismatchError(key, mismatch);
      if (options.batch) {
        await this.#publishLater(options.batch, null, tmp, target);
        return stored;
      }
      await this.#publish(tmp, target);
      return stored;
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
  }

  /**
   * `put` without streams: each chunk is hashed while the thread pool writes it (the producer's
   * buffer is free again once `write` resolves), one descriptor, no allocation per chunk. With a
   * batch and `handsOverChunks`, `write` does not wait for the disk at all (up to
   * PUT_QUEUE_BYTES of a put's chunks queued): the writes finish, and the file is published, in
   * the background, while the producer hashes the next chunks and the next files.
   */
  async putChunks(key: string, produce: ChunkProducer, options: PutOptions = {}): Promise<StoredBlob> {
    const target = this.#pathOf(key);
    await this.#ensureDirs();
    const tmp = path.join(this.#tmp, randomUUID());
    const handle = await fsp.open(tmp, 'wx');
    const detached = options.batch !== undefined && options.handsOverChunks === true;
    /** The writes queued so far, in order (detached); a failed one is the put's failure. */
    let writing: Promise<void> = Promise.resolve();
    let writeFailure: unknown = null;
    let queued = 0;
    let handed = false;
    try {
      const hash = createHash('sha256');
      const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
      let size = 0;
      await produce(async (chunk) => {
        const at = size;
        size += chunk.byteLength;
        if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
        if (!detached) {
          const written = writeAll(handle, chunk, at);
          hash.update(chunk); // on this thread while the pool writes
          await written;
          return;
        }
        if (writeFailure) throw writeFailure;
        queued += chunk.byteLength;
        writing = writing.then(async () => {
          await writeAll(handle, chunk, at);
          queued -= chunk.byteLength;
        });
        writing.catch((error: unknown) => {
          writeFailure ??= error;
        });
        hash.update(chunk);
        if (queued >= PUT_QUEUE_BYTES) await writing;
      });
      const stored = { size, sha256: hash.digest('hex') };
      const mismatch = options.expected ? mismatchOf(options.expected, stored) : null;
      if (mismatch) throw new BlobChecksumMismatchError(key, mismatch);
      handed = true;
      if (options.batch) {
        await this.#publishLater(options.batch, handle, tmp, target, writing, queued);
        return stored;
      }
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.#publish(tmp, target);
      return stored;
    } catch (error) {
      if (!handed) {
        await writing.catch(() => {}); // no write may land after the file is removed
        await handle.close().catch(() => {});
      }
      await fsp.rm(tmp, { force: true });
      throw error;
    }
  }

  /** Renames a durable temporary file into place and makes the name durable. */
  async #publish(tmp: string, target: string): Promise<void> {
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(tmp, target);
    await fsyncDir(path.dirname(target));
  }

  /**
   * A batch's put: the key published in the background (no fsync: the thread pool stays free for
   * the reads and writes of the next files); made durable with the batch's others at `sync()`.
   */
  #publishLater(
    batch: SyncBatch,
    handle: fsp.FileHandle | null,
    tmp: string,
    target: string,
    writing: Promise<void> = Promise.resolve(),
    heldBytes = 0,
  ): Promise<void> {
    const dir = path.dirname(target);
    const work = (async () => {
      try {
        try {
          await writing;
        } finally {
          await handle?.close();
        }
        await batch.once(`mkdir:${dir}`, () => fsp.mkdir(dir, { recursive: true }));
        await fsp.rename(tmp, target);
      } catch (error) {
        await fsp.rm(tmp, { force: true });
        throw error;
      }
      this.#toSync(batch, target, dir);
    })();
    return batch.defer(work, heldBytes);
  }

  #toSync(batch: SyncBatch, file: string, dir: string): void {
    let published = this.#published.get(batch);
    if (!published) {
      const mine = { files: [] as string[], dirs: new Set<string>() };
      published = mine;
      this.#published.set(batch, mine);
      batch.atSync(`local:${this.root}`, () => {
        this.#published.delete(batch); // a batch reused after sync() starts a new list
        return this.#makeDurable(mine);
      });
    }
    published.files.push(file);
    published.dirs.add(dir);
  }

  /**
   * Every file a batch published, and every folder entry it made, durable: one syncfs of the
   * filesystem they are on (each came there by a rename from `.tmp`, so it is `.tmp`'s), or, where
   * syncfs cannot vouch for them (syncfs.ts), an fsync per file (SYNC_LANES at a time) then per folder.
   */
  async #makeDurable({ files, dirs }: { files: string[]; dirs: Set<string> }): Promise<void> {
    if (await syncFilesystem(this.#tmp)) return;
    await inLanes(files, SYNC_LANES, fsyncFile);
    for (const dir of dirs) await fsyncDir(dir);
  }

  /**
   * Reads with two buffers of a shared pool: the next read is in flight in the thread pool while
   * `onChunk` works on the current one.
   */
  async getChunks(key: string, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<number> {
    const { handle, stat } = await this.#openBlob(key);
    let current = takeBuffer();
    let next = takeBuffer();
    let reading: Promise<{ bytesRead: number }> | null = null;
    try {
      let position = 0;
      // Blobs are replaced by rename, never rewritten: the handle's file keeps its size.
      reading = stat.size > 0 ? handle.read(current, 0, current.length, position) : null;
      while (reading) {
        const { bytesRead } = await reading;
        reading = null;
        if (bytesRead === 0) break;
        position += bytesRead;
        const chunk = current.subarray(0, bytesRead);
        if (position < stat.size) reading = handle.read(next, 0, next.length, position);
        await onChunk(chunk);
        [current, next] = [next, current];
      }
      return position;
    } finally {
      if (reading) await reading.catch(() => {});
      giveBuffer(current);
      giveBuffer(next);
      await handle.close();
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    if (range) assertValidRange(range);
    const { handle, stat } = await this.#openBlob(key);
    try {
      if (range && range.start >= stat.size) throw new BlobRangeError(range, stat.size);
      // Reading from the handle we checked means a concurrent delete cannot turn into a half stream.
      return handle.createReadStream({
        start: range?.start,
        end: range ? Math.min(range.end, stat.size - 1) : undefined,
        highWaterMark: IO_CHUNK,
      });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** A stored blob opened for reading, or BlobNotFoundError when it is missing or not a file. */
  async #openBlob(key: string): Promise<{ handle: fsp.FileHandle; stat: fs.Stats }> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.#pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key);
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new BlobNotFoundError(key);
      return { handle, stat };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async head(key: string): Promise<BlobHead | null> {
    try {
      const stat = await fsp.stat(this.#pathOf(key));
      return stat.isFile() ? { size: stat.size } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await fsp.unlink(this.#pathOf(key));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  async ping(): Promise<void> {
    await this.#ensureDirs();
    await fsp.access(this.#tmp, fs.constants.W_OK);
  }

  /** Removes temp files older than `olderThanMs` (left by a crash mid-upload); returns how many. */
  async sweepTemp(olderThanMs = 60 * 60 * 1000): Promise<number> {
    const names = await fsp
      .readdir(this.#tmp)
      .catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      const file = path.join(this.#tmp, name);
      const stat = await fsp.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) {
        await fsp.rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  #pathOf(key: string): string {
    assertValidBlobKey(key);
    if (key === TMP_DIR || key.startsWith(`${TMP_DIR}/`))
      throw new InvalidBlobKeyError(key, `"${TMP_DIR}" is reserved`);
    return path.join(this.root, key);
  }

  #ensureDirs(): Promise<void> {
    this.#ready ??= fsp.mkdir(this.#tmp, { recursive: true }).then(
      () => undefined,
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }
}

/** Buffers of IO_CHUNK bytes reused by `getChunks` (a few: one pair per read in flight). */
const bufferPool: Buffer[] = [];
const takeBuffer = () => bufferPool.pop() ?? Buffer.allocUnsafeSlow(IO_CHUNK);
const giveBuffer = (b: Buffer) => {
  if (bufferPool.length < 16) bufferPool.push(b);
};

/** Writes all of `chunk` at `position` of the file (positional: queued writes need no order). */
async function writeAll(handle: fsp.FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset, position + offset);
    offset += bytesWritten;
  }
}

/** A detached put's chunks queued for the disk at most (PutOptions.handsOverChunks). */
const PUT_QUEUE_BYTES = 4 * 1024 * 1024;

async function fsyncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename or new entry in `dir` durable (the file's own fsync does not cover its name). */
async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
