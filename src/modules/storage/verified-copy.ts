import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobStore } from '../../providers/blobs/blob-store.ts';

/** The bytes in the target differ from what was sent (corrupted in transit or at rest). */
export class ChecksumMismatchError extends Error {
  constructor(key: string, expected: string, actual: string) {
    super(`checksum mismatch for ${key}: expected sha256 ${expected}, target holds ${actual}`);
    this.name = 'ChecksumMismatchError';
  }
}

/** Re-copies within one attempt when the read-back does not match, before counting a failure. */
const COPIES_PER_ATTEMPT = 2;

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

/** The first store holding `key`, in order (the source, then older copies). */
export async function openFirst(stores: readonly BlobStore[], key: string): Promise<Readable> {
  for (const store of stores) {
    try {
      return await store.get(key);
    } catch (error) {
      if (!(error instanceof BlobNotFoundError)) throw error;
    }
  }
  throw new BlobNotFoundError(key);
}

/** Whether `target` already holds exactly these bytes (a copy a crashed run finished). */
export async function holdsExactly(target: BlobStore, key: string, expected: { sha256: string; size: number }): Promise<boolean> {
  const head = await target.head(key);
  if (!head || head.size !== expected.size) return false;
  return (await digestOf(await target.get(key))).sha256 === expected.sha256;
}

/**
 * Copies one blob store-to-store as a stream and proves it arrived: the bytes sent must hash to
 * `expectedSha256` (when known) and the target's copy, read back, to the same. A mismatching copy
 * is made again; answers the size copied.
 */
export async function copyVerified(
  sources: readonly BlobStore[],
  target: BlobStore,
  key: string,
  expectedSha256: string | null,
  /** Bounds the uploads in flight (the read-backs run outside it, overlapping other uploads). */
  uploadSlot: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
): Promise<number> {
  let lastError: Error | undefined;
  for (let copy = 0; copy < COPIES_PER_ATTEMPT; copy += 1) {
    const stored = await uploadSlot(async () => target.put(key, await openFirst(sources, key)));
    if (expectedSha256 !== null && stored.sha256 !== expectedSha256) {
      // The source itself does not hold the recorded bytes: copying again cannot help.
      await target.delete(key);
      throw new Error(`source bytes of ${key} do not match the stored checksum (sha256 ${stored.sha256}, expected ${expectedSha256})`);
    }
    const back = await digestOf(await target.get(key));
    if (back.sha256 === stored.sha256 && back.size === stored.size) return stored.size;
    lastError = new ChecksumMismatchError(key, stored.sha256, back.sha256);
  }
  await target.delete(key);
  throw lastError!;
}
