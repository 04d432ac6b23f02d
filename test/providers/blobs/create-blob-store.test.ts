import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { blobStoreFromConfig } from '../../../src/providers/blobs/create-blob-store.ts';
import { LocalBlobStore } from '../../../src/providers/blobs/local-blob-store.ts';
import { S3BlobStore } from '../../../src/providers/blobs/s3-blob-store.ts';

describe('blobStoreFromConfig', () => {
  it('uses <DATA_DIR>/blobs by default', async () => {
    const store = await blobStoreFromConfig(loadConfig({ DATA_DIR: '/srv/data' }));
    assert.ok(store instanceof LocalBlobStore);
    assert.equal(store.root, path.join('/srv/data', 'blobs'));
  });

  it('builds an S3 store from the S3_* settings', async () => {
    const store = await blobStoreFromConfig(
      loadConfig({
        BLOB_STORE: 's3',
        S3_BUCKET: 'docs',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_REGION: 'eu-west-1',
        S3_ACCESS_KEY_ID: 'k',
        S3_SECRET_ACCESS_KEY: 's',
        S3_FORCE_PATH_STYLE: 'true',
      }),
    );
    assert.ok(store instanceof S3BlobStore);
    assert.equal(store.bucket, 'docs');
    assert.equal(await store.client.config.region(), 'eu-west-1');
    assert.equal(store.client.config.forcePathStyle, true);
    store.destroy();
  });
});
