import type { Readable } from 'node:stream';
import {
  BlobChecksumMismatchError,
  BlobNotFoundError,
  type BlobStore,
  type ExpectedBytes,
} from '../../providers/blobs/blob-store.ts';
import { digestOf } from '../../providers/blobs/hashing-counter.ts';

/** Copies made within one attempt when the target refuses the bytes, before counting a failure. */
const COPIES_PER_ATTEMPT = 2;

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

/**
 * Whether `target` already holds exactly these bytes (a copy a crashed run or an earlier migration
 * made): by the SHA-256 the store recorded when it checked them on arrival, else by reading them back.
 */
export async function holdsExactly(
  target: BlobStore,
  key: string,
  expected: Required<ExpectedBytes>,
): Promise<boolean> {
  const head = await target.head(key);
  if (!head || head.size !== expected.size) return false;
  if (head.sha256 !== undefined) return head.sha256 === expected.sha256;
  return (await digestOf(await target.get(key))).sha256 === expected.sha256;
}

/**
 * Copies one blob store-to-store as a stream, verified by SHA-256: the target keeps it only when it
 * proves it holds exactly the expected bytes (the document's recorded hash; for a blob without one,
 * the hash of the source's bytes), see `PutOptions.expected`. A refused copy is made again; answers
 * the size copied.
 */
export async function copyVerified(
  sources: readonly BlobStore[],
  target: BlobStore,
  key: string,
  known: ExpectedBytes | null,
  /** Bounds the uploads in flight. */
  uploadSlot: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
): Promise<number> {
  for (let copy = 1; ; copy += 1) {
    const expected = known ?? (await digestOf(await openFirst(sources, key)));
    try {
      return (await uploadSlot(async () => target.put(key, await openFirst(sources, key), { expected }))).size;
    } catch (error) {
      // Corrupted on the way (or at the source: then the second copy fails alike and the attempt counts).
      if (!(error instanceof BlobChecksumMismatchError) || copy >= COPIES_PER_ATTEMPT) throw error;
    }
  }
}
