import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from './blob-store.ts';

/**
 * Runs `use` with the blob's bytes in a local temporary file (parsers and ffmpeg want a path, and
 * a 500 MB file must not be held in memory), and removes the file afterwards, whatever happens.
 */
export async function withBlobAsFile<T>(
  blobs: BlobStore,
  key: string,
  name: string,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docuvault-'));
  try {
    const file = path.join(dir, path.basename(name) || 'blob');
    await pipeline(await blobs.get(key), createWriteStream(file, { mode: 0o600 }));
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
