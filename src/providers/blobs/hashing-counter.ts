import { createHash } from 'node:crypto';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store.ts';

/** Large buffers cut the number of syscalls and thread-pool round trips per megabyte. */
export const IO_CHUNK = 1024 * 1024;

/** Hashes and counts the bytes flowing through it, failing once they pass `maxBytes`. */
export class HashingCounter extends Transform {
  readonly #hash = createHash('sha256');
  readonly #maxBytes: number;
  /** Bytes seen so far. (Not `size`: lib-storage would take that for the body length.) */
  bytesSeen = 0;

  constructor(maxBytes = Number.POSITIVE_INFINITY) {
    super({ highWaterMark: IO_CHUNK });
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytesSeen += chunk.length;
    if (this.bytesSeen > this.#maxBytes) {
      callback(new BlobTooLargeError(this.#maxBytes));
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }

  /** Hex SHA-256 of everything that passed; call once, after the stream ended. */
  digest(): string {
    return this.#hash.digest('hex');
  }
}

/** Streams a blob through SHA-256 (never whole in memory). */
export async function digestOf(stream: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}
