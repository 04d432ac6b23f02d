import path from 'node:path';
import type { Config } from '../../config/config.ts';
import type { BlobStore } from './blob-store.ts';
import { LocalBlobStore } from './local-blob-store.ts';

/** What `createBlobStore` needs: a folder, or an S3-compatible bucket. */
export type BlobStoreConfig =
  | { driver: 'local'; root: string }
  | {
      driver: 's3';
      /** null means AWS itself. */
      endpoint: string | null;
      bucket: string;
      region: string;
      /** null (both) means the SDK's default credential chain. */
      accessKeyId: string | null;
      secretAccessKey: string | null;
      forcePathStyle: boolean;
      prefix?: string;
    };

/**
 * Builds the blob store for a driver. The S3 adapter (and with it the AWS SDK, ~30 MiB of heap)
 * is loaded only when S3 is configured.
 */
export async function createBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  if (config.driver === 'local') return new LocalBlobStore(config.root);
  const { S3BlobStore } = await import('./s3-blob-store.ts');
  const { accessKeyId, secretAccessKey } = config;
  return new S3BlobStore({
    endpoint: config.endpoint,
    bucket: config.bucket,
    region: config.region,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.prefix ? { prefix: config.prefix } : {}),
  });
}

/** The blob store the application configuration asks for (`BLOB_STORE`, `S3_*`, `DATA_DIR`). */
export function blobStoreFromConfig(config: Config): Promise<BlobStore> {
  const blobs = config.blobs;
  if (blobs.driver === 'local') return createBlobStore({ driver: 'local', root: path.join(config.dataDir, 'blobs') });
  return createBlobStore({ ...blobs });
}
