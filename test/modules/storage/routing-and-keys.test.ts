import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import type { Executor } from '../../../src/db/executor.ts';
import { CredentialsBox } from '../../../src/modules/storage/credentials-box.ts';
import { BlobNotFoundError } from '../../../src/providers/blobs/blob-store.ts';
import { blobStoreConfigFromUrl } from '../../../src/providers/blobs/blob-store-url.ts';
import { digestOf } from '../../../src/providers/blobs/hashing-counter.ts';
import { LocalBlobStore } from '../../../src/providers/blobs/local-blob-store.ts';
import { TenantRoutingBlobStore } from '../../../src/providers/blobs/tenant-routing-blob-store.ts';

const dirs: string[] = [];
async function localStore(): Promise<LocalBlobStore> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'routing-'));
  dirs.push(dir);
  return new LocalBlobStore(dir);
}
after(() => Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true }))));

const bytes = (text: string) => Readable.from([Buffer.from(text)]);
const text = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('TenantRoutingBlobStore', () => {
  it('writes to the placement, reads wherever the key is, deletes every copy', async () => {
    const [shared, source, target] = [await localStore(), await localStore(), await localStore()];
    const routing = new TenantRoutingBlobStore(shared);
    routing.route(async (tenantId) => (tenantId === 'a' ? { write: target, read: [source, target] } : null));
    await source.put('tenants/a/documents/old', bytes('old bytes'));
    await routing.put('tenants/a/documents/new', bytes('new bytes'));
    assert.ok(await target.head('tenants/a/documents/new'), 'new bytes go to the write store');
    assert.equal(await source.head('tenants/a/documents/new'), null);
    assert.equal(await text(await routing.get('tenants/a/documents/old')), 'old bytes');
    assert.equal(await text(await routing.get('tenants/a/documents/new')), 'new bytes');
    assert.deepEqual(await routing.head('tenants/a/documents/new'), { size: 9 });
    await target.put('tenants/a/documents/old', bytes('old bytes'));
    await routing.delete('tenants/a/documents/old');
    assert.equal(await source.head('tenants/a/documents/old'), null);
    assert.equal(await target.head('tenants/a/documents/old'), null);
    await assert.rejects(routing.get('tenants/a/documents/old'), BlobNotFoundError);
    // Another tenant (no placement) and keys outside tenants/ stay in the shared store.
    await routing.put('tenants/b/documents/x', bytes('b'));
    await routing.put('other/key', bytes('c'));
    assert.ok(await shared.head('tenants/b/documents/x'));
    assert.ok(await shared.head('other/key'));
  });
});

describe('CredentialsBox', () => {
  const noDatabase = {} as Executor;
  const key = () => randomBytes(32).toString('base64');

  it('seals with the first configured key and opens with any configured key (rotation)', async () => {
    const k1 = { id: 'k1', key: key() };
    const k2 = { id: 'k2', key: key() };
    const before = new CredentialsBox([k1], noDatabase, () => 0);
    const sealed = await before.seal('secret-access-key');
    assert.equal(sealed.keyId, 'k1');
    assert.ok(!sealed.sealed.includes('secret-access-key'));
    const rotated = new CredentialsBox([k2, k1], noDatabase, () => 0);
    assert.equal(await rotated.open(sealed), 'secret-access-key');
    assert.equal((await rotated.seal('x')).keyId, 'k2');
    const retired = new CredentialsBox([k2], noDatabase, () => 0);
    await assert.rejects(retired.open(sealed), /not configured/);
  });

  it('reads STORAGE_ENCRYPTION_KEYS and refuses a malformed one', () => {
    const k = key();
    assert.deepEqual(loadConfig({ STORAGE_ENCRYPTION_KEYS: `2026a:${k}` }).storage.encryptionKeys, [
      { id: '2026a', key: k },
    ]);
    assert.throws(() => loadConfig({ STORAGE_ENCRYPTION_KEYS: 'k1:short' }), /STORAGE_ENCRYPTION_KEYS/);
    const defaults = loadConfig({}).storage;
    assert.deepEqual(defaults.retryDelaysMs, [60_000, 300_000, 900_000]);
    assert.equal(defaults.retentionMs, 7 * 86_400_000);
    assert.equal(defaults.dedicatedUrl, null);
  });
});

describe('blobStoreConfigFromUrl (DEDICATED_STORAGE_URL)', () => {
  const defaults = {
    endpoint: null,
    region: 'us-east-1',
    accessKeyId: null,
    secretAccessKey: null,
    forcePathStyle: false,
  };
  it('reads folders and buckets with the tenant filled in', async () => {
    assert.deepEqual(blobStoreConfigFromUrl('file:///srv/docuvault/tenants/{tenant_id}', 't1', defaults), {
      driver: 'local',
      root: '/srv/docuvault/tenants/t1',
    });
    const s3 = blobStoreConfigFromUrl(
      's3://bucket/tenants/{tenant_id}?endpoint=http%3A%2F%2Fminio%3A9000&force_path_style=true&region=eu-west-1',
      't1',
      defaults,
    );
    assert.deepEqual(s3, {
      ...defaults,
      driver: 's3',
      bucket: 'bucket',
      prefix: 'tenants/t1',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    const store = await localStore();
    await store.put('k', bytes('z'));
    assert.equal((await digestOf(await store.get('k'))).size, 1);
  });
});
