import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { BlobChecksumMismatchError, BlobTooLargeError } from '../../../src/providers/blobs/blob-store.ts';
import { S3BlobStore } from '../../../src/providers/blobs/s3-blob-store.ts';
import { type S3TestServer, startS3Server } from '../../support/s3-server.ts';
import { generatedSha256, generatedStream, readAll, sha256Of } from './blob-test-helpers.ts';

// What the contract cannot see: how S3BlobStore talks to the bucket, and that the test server
// speaks the wire format the SDK really sends (aws-chunked bodies, trailing CRC32, XML lists).

const MiB = 1024 * 1024;

const count = (server: S3TestServer, operation: string) => server.operations.get(operation) ?? 0;

/** A store on `server`'s bucket `docs` with 5 MiB parts, and that bucket created. */
async function storeOn(server: S3TestServer): Promise<S3BlobStore> {
  const store = new S3BlobStore({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    bucket: 'docs',
    partSize: 5 * MiB,
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
  });
  await store.client.send(new CreateBucketCommand({ Bucket: 'docs' }));
  return store;
}

describe('S3BlobStore against the test S3 server', () => {
  let server: S3TestServer;
  let client: S3Client;
  let store: S3BlobStore;
  before(async () => {
    server = await startS3Server();
    const common = { endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true };
    client = new S3Client({ ...common, credentials: { accessKeyId: 'k', secretAccessKey: 's' } });
    await client.send(new CreateBucketCommand({ Bucket: 'docs' }));
    store = new S3BlobStore({
      ...common,
      bucket: 'docs',
      prefix: '/env-a/',
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
  });
  after(async () => {
    store.destroy();
    client.destroy();
    await server.close();
  });

  it('stores keys under the prefix', async () => {
    await store.put('tenants/1/documents/2', Readable.from([Buffer.from('x')]));
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'docs', Prefix: 'env-a/' }));
    assert.deepEqual(
      listed.Contents?.map((o) => [o.Key, o.Size]),
      [['env-a/tenants/1/documents/2', 1]],
    );
  });

  it('aborts the multipart upload it started when maxBytes is passed', async () => {
    const before = server.operations.get('AbortMultipartUpload') ?? 0;
    await assert.rejects(store.put('big', generatedStream(40 * MiB), { maxBytes: 25 * MiB }), BlobTooLargeError);
    assert.ok((server.operations.get('UploadPart') ?? 0) >= 2, 'parts were uploaded before the limit');
    assert.equal(server.operations.get('AbortMultipartUpload'), before + 1);
    const pending = await client.send(new ListMultipartUploadsCommand({ Bucket: 'docs' }));
    assert.equal(pending.Uploads?.length ?? 0, 0);
    assert.deepEqual(server.keys('docs'), ['env-a/tenants/1/documents/2']);
  });

  it('decodes aws-chunked bodies with a trailing CRC32 (the SDK default for streams)', async () => {
    const body = Buffer.from('streamed through aws-chunked framing');
    await client.send(
      new PutObjectCommand({ Bucket: 'docs', Key: 'chunked', Body: Readable.from([body]), ContentLength: body.length }),
    );
    const got = await client.send(new GetObjectCommand({ Bucket: 'docs', Key: 'chunked' }));
    assert.ok((await readAll(got.Body as Readable)).equals(body));
  });

  it('decodes signed aws-chunked framing and rejects a wrong checksum', async () => {
    const payload = Buffer.from('hello chunked world');
    const frame = (chunks: Buffer[], trailer: string) =>
      Buffer.concat([
        ...chunks.flatMap((c) => [
          Buffer.from(`${c.length.toString(16)};chunk-signature=abc\r\n`),
          c,
          Buffer.from('\r\n'),
        ]),
        Buffer.from(`0;chunk-signature=abc\r\n${trailer}\r\n`),
      ]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(payload));
    const send = (trailer: string) =>
      fetch(`${server.endpoint}/docs/raw`, {
        method: 'PUT',
        headers: {
          'content-encoding': 'aws-chunked',
          'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
          'x-amz-decoded-content-length': String(payload.length),
        },
        body: frame([payload.subarray(0, 5), payload.subarray(5)], trailer),
      });
    const good = await send(`x-amz-checksum-crc32:${crc.toString('base64')}\r\n`);
    assert.equal(good.status, 200);
    assert.equal(await (await fetch(`${server.endpoint}/docs/raw`)).text(), payload.toString());
    const bad = await send('x-amz-checksum-crc32:AAAAAA==\r\n');
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /<Code>BadDigest<\/Code>/);
  });

  it('answers S3 error codes', async () => {
    const missingKey = await fetch(`${server.endpoint}/docs/nope`);
    assert.equal(missingKey.status, 404);
    assert.match(await missingKey.text(), /<Code>NoSuchKey<\/Code>/);
    const missingBucket = await fetch(`${server.endpoint}/nope/key`);
    assert.match(await missingBucket.text(), /<Code>NoSuchBucket<\/Code>/);
    const missingUpload = await fetch(`${server.endpoint}/docs/key?uploadId=nope`, { method: 'DELETE' });
    assert.equal(missingUpload.status, 404);
    assert.match(await missingUpload.text(), /<Code>NoSuchUpload<\/Code>/);
  });

  it('proves a put with expected bytes by the server checksum, without reading it back', async () => {
    const body = Buffer.from('checked by the server');
    const expected = { sha256: await sha256Of(body), size: body.length };
    const gets = count(server, 'GetObject');
    await store.put('checked', Readable.from([body]), { expected });
    assert.equal(count(server, 'GetObject'), gets, 'no read-back');
    assert.deepEqual(
      await store.head('checked'),
      { size: body.length, sha256: expected.sha256 },
      'HEAD answers the kept whole-object SHA-256',
    );
    await store.put('unchecked', Readable.from([body]));
    assert.deepEqual(
      await store.head('unchecked'),
      { size: body.length },
      'a CRC32-only object has no SHA-256 to answer',
    );
  });

  it('a body corrupted on the way is refused by the server (BadDigest) and nothing is kept', async () => {
    const body = Buffer.from('corrupted in transit');
    const expected = { sha256: await sha256Of(body), size: body.length };
    await store.put('transit', Readable.from([Buffer.from('an older version')]));
    server.corruptNextBody('docs', 'env-a/transit');
    await assert.rejects(store.put('transit', Readable.from([body]), { expected }), BlobChecksumMismatchError);
    assert.equal(
      await readAll(await store.get('transit')).then(String),
      'an older version',
      'the refused PUT replaced nothing',
    );
  });

  it('checks each part of a large put by its SHA-256 and refuses a corrupted part', async () => {
    const s = await storeOn(server);
    try {
      const size = 12 * MiB;
      const expected = { sha256: generatedSha256(size), size };
      server.corruptNextBody('docs', 'big');
      const aborts = count(server, 'AbortMultipartUpload');
      await assert.rejects(s.put('big', generatedStream(size), { expected }), BlobChecksumMismatchError);
      assert.equal(count(server, 'AbortMultipartUpload'), aborts + 1);
      assert.equal(await s.head('big'), null);
      const gets = count(server, 'GetObject');
      await s.put('big', generatedStream(size), { expected });
      assert.equal(count(server, 'GetObject'), gets, 'checked parts: no read-back');
      const head = await s.head('big');
      assert.equal(head?.size, size);
      assert.equal(head?.sha256, undefined, 'a checksum of parts is not the whole-object hash');
    } finally {
      s.destroy();
    }
  });

  it('reads the object back when the server keeps no checksums, and catches a corruption that way', async () => {
    const plain = await startS3Server({ checksums: false });
    const s = await storeOn(plain);
    try {
      const body = Buffer.from('on a server without additional checksums');
      const expected = { sha256: await sha256Of(body), size: body.length };
      await s.put('k', Readable.from([body]), { expected });
      assert.equal(count(plain, 'GetObject'), 1, 'verified by reading it back');
      assert.deepEqual(await s.head('k'), { size: body.length });
      plain.corruptNextBody('docs', 'k');
      await assert.rejects(s.put('k', Readable.from([body]), { expected }), /read back: expected sha256/);
      assert.equal(await s.head('k'), null, 'the corrupted object is removed');
    } finally {
      s.destroy();
      await plain.close();
    }
  });
});
