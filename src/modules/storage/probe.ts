import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { digestOf } from '../../providers/blobs/hashing-counter.ts';

/**
 * Proves a store takes the tenant's files: writes a probe object under the tenant's prefix, reads
 * it back byte for byte, deletes it and checks it is gone. Throws the store's own error.
 */
export async function probeStore(store: BlobStore, tenantId: string): Promise<void> {
  const key = `tenants/${tenantId}/probe/${randomUUID()}`;
  const bytes = randomBytes(64);
  const written = await store.put(key, Readable.from([bytes]));
  try {
    const back = await digestOf(await store.get(key));
    if (back.sha256 !== written.sha256 || back.size !== bytes.length)
      throw new Error('the probe object read back differs from what was written');
  } finally {
    await store.delete(key);
  }
  if (await store.head(key)) throw new Error('the probe object is still there after delete');
}
