import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import {
  BlobChecksumMismatchError,
  BlobNotFoundError,
  BlobRangeError,
  type BlobStore,
  BlobTooLargeError,
  InvalidBlobKeyError,
  SyncBatch,
} from '../../../src/providers/blobs/blob-store.ts';
import { LocalBlobStore } from '../../../src/providers/blobs/local-blob-store.ts';
import { S3BlobStore } from '../../../src/providers/blobs/s3-blob-store.ts';
import { syncfsReportsErrors } from '../../../src/providers/blobs/syncfs.ts';
import { type S3TestServer, startS3Server } from '../../support/s3-server.ts';
import { failingStream, generatedSha256, generatedStream, readAll, sha256Of } from './blob-test-helpers.ts';

// One contract, every implementation: what callers may rely on whichever BLOB_STORE is configured.

interface Harness {
  store: BlobStore;
  /** Debris a failed put could leave: temp files (local) or open multipart uploads (S3). */
  leftovers(): Promise<string[]>;
  /** A store of the same kind that cannot work (for ping). */
  broken(): BlobStore;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
let s3Server: S3TestServer | undefined;

const FACTORIES: { name: string; create(): Promise<Harness> }[] = [
  {
    name: 'local',
    async create() {
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'blobs-contract-'));
      const store = new LocalBlobStore(path.join(dir, 'blobs'));
      await fsp.writeFile(path.join(dir, 'a-file'), '');
      return {
        store,
        leftovers: async () => fsp.readdir(path.join(store.root, '.tmp')).catch(() => []),
        broken: () => new LocalBlobStore(path.join(dir, 'a-file', 'blobs')),
        close: () => fsp.rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 's3',
    async create() {
      s3Server ??= await startS3Server();
      const server = s3Server;
      const bucket = `contract-${randomBytes(4).toString('hex')}`;
      const make = (name: string) =>
        new S3BlobStore({
          endpoint: server.endpoint,
          bucket: name,
          region: 'us-east-1',
          credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
          forcePathStyle: true,
          prefix: 'app',
        });
      const store = make(bucket);
      const broken = make('no-such-bucket');
      await store.client.send(new CreateBucketCommand({ Bucket: bucket }));
      return {
        store,
        leftovers: async () => server.pendingUploads(bucket).map((u) => `upload ${u.uploadId} for ${u.key}`),
        broken: () => broken,
        async close() {
          store.destroy();
          broken.destroy();
        },
      };
    },
  },
];

after(async () => {
  await s3Server?.close();
});

for (const factory of FACTORIES) {
  describe(`BlobStore contract: ${factory.name}`, () => {
    let h: Harness;
    let store: BlobStore;
    before(async () => {
      h = await factory.create();
      store = h.store;
    });
    after(() => h.close());

    const text = (s: string) => Readable.from([Buffer.from(s)]);
    const getText = async (key: string, range?: { start: number; end: number }) =>
      (await readAll(await store.get(key, range))).toString();
    async function assertNothingStored(key: string) {
      assert.equal(await store.head(key), null);
      await assert.rejects(store.get(key), BlobNotFoundError);
      assert.deepEqual(await h.leftovers(), []);
    }

    it(`reports its kind`, () => {
      assert.equal(store.kind, factory.name);
    });

    it('round-trips text with its size and sha256', async () => {
      const stored = await store.put('tenants/t1/documents/d1', text('hello, world'), { contentType: 'text/plain' });
      assert.deepEqual(stored, { size: 12, sha256: await sha256Of(Buffer.from('hello, world')) });
      assert.equal(await getText('tenants/t1/documents/d1'), 'hello, world');
      assert.deepEqual(await store.head('tenants/t1/documents/d1'), { size: 12 });
    });

    it('round-trips every byte value and an empty blob', async () => {
      const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(70_000)]);
      const stored = await store.put(
        'tenants/t1/documents/binary',
        Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
      );
      assert.deepEqual(stored, { size: bytes.length, sha256: await sha256Of(bytes) });
      assert.ok((await readAll(await store.get('tenants/t1/documents/binary'))).equals(bytes));

      const empty = await store.put('tenants/t1/documents/empty', Readable.from([]));
      assert.deepEqual(empty, { size: 0, sha256: await sha256Of(Buffer.alloc(0)) });
      assert.equal((await readAll(await store.get('tenants/t1/documents/empty'))).length, 0);
      assert.deepEqual(await store.head('tenants/t1/documents/empty'), { size: 0 });
    });

    it('serves inclusive byte ranges', async () => {
      await store.put('ranges', text('0123456789'));
      assert.equal(await getText('ranges', { start: 0, end: 0 }), '0');
      assert.equal(await getText('ranges', { start: 3, end: 6 }), '3456');
      assert.equal(await getText('ranges', { start: 9, end: 9 }), '9');
      assert.equal(await getText('ranges', { start: 0, end: 9 }), '0123456789');
      assert.equal(await getText('ranges', { start: 7, end: 1000 }), '789', 'end past the last byte is clamped');
    });

    it('rejects unsatisfiable ranges', async () => {
      await store.put('ranges-bad', text('abc'));
      await assert.rejects(store.get('ranges-bad', { start: 3, end: 5 }), BlobRangeError);
      await assert.rejects(store.get('ranges-bad', { start: 2, end: 1 }), BlobRangeError);
      await assert.rejects(store.get('ranges-bad', { start: -1, end: 1 }), BlobRangeError);
    });

    it('heads and deletes, idempotently', async () => {
      await store.put('tenants/t1/documents/gone', text('bye'));
      assert.deepEqual(await store.head('tenants/t1/documents/gone'), { size: 3 });
      await store.delete('tenants/t1/documents/gone');
      assert.equal(await store.head('tenants/t1/documents/gone'), null);
      await store.delete('tenants/t1/documents/gone');
      await store.delete('tenants/never/documents/existed');
      assert.equal(await getText('tenants/t1/documents/d1'), 'hello, world', 'siblings are untouched');
    });

    it('throws BlobNotFoundError for a missing key, with or without a range', async () => {
      await assert.rejects(store.get('tenants/t1/documents/missing'), BlobNotFoundError);
      await assert.rejects(store.get('tenants/t1/documents/missing', { start: 0, end: 1 }), BlobNotFoundError);
      assert.equal(await store.head('tenants/t1/documents/missing'), null);
    });

    it('overwriting a key replaces it', async () => {
      await store.put('overwrite', text('first version, longer'));
      const second = await store.put('overwrite', text('second'));
      assert.equal(second.size, 6);
      assert.equal(await getText('overwrite'), 'second');
      assert.deepEqual(await store.head('overwrite'), { size: 6 });
    });

    it('accepts exactly maxBytes', async () => {
      const stored = await store.put('exact', text('12345'), { maxBytes: 5 });
      assert.equal(stored.size, 5);
    });

    it('fails with BlobTooLargeError past maxBytes and stores nothing', async () => {
      await assert.rejects(store.put('too-large/small', text('123456'), { maxBytes: 5 }), BlobTooLargeError);
      await assertNothingStored('too-large/small');
    });

    it('fails with BlobTooLargeError mid multipart upload and leaves no upload behind', async () => {
      const error = await store
        .put('too-large/big', generatedStream(30 * MiB), { maxBytes: 20 * MiB })
        .catch((e: unknown) => e);
      assert.ok(error instanceof BlobTooLargeError, String(error));
      assert.equal(error.limit, 20 * MiB);
      await assertNothingStored('too-large/big');
    });

    it('keeps a put whose bytes are the expected ones', async () => {
      const bytes = Buffer.from('known bytes');
      const sha256 = await sha256Of(bytes);
      const stored = await store.put('expected/ok', Readable.from([bytes]), {
        expected: { sha256, size: bytes.length },
      });
      assert.deepEqual(stored, { size: bytes.length, sha256 });
      assert.equal(await getText('expected/ok'), 'known bytes');
      await store.put('expected/no-size', text('known bytes'), { expected: { sha256 } });
      assert.equal(await getText('expected/no-size'), 'known bytes');
    });

    it('refuses bytes other than the expected ones and stores none of them', async () => {
      const wanted = Buffer.from('the recorded bytes');
      const expected = { sha256: await sha256Of(wanted), size: wanted.length };
      await assert.rejects(
        store.put('expected/other', text('other bytes, same size'.slice(0, wanted.length)), { expected }),
        BlobChecksumMismatchError,
      );
      await assertNothingStored('expected/other');
      await assert.rejects(
        store.put('expected/short', text('the recorded'), { expected: { sha256: expected.sha256 } }),
        BlobChecksumMismatchError,
      );
      await assertNothingStored('expected/short');
    });

    it('checks a multipart-sized body against the expected hash too', async () => {
      const size = 20 * MiB;
      await assert.rejects(
        store.put('expected/big', generatedStream(size), {
          expected: { sha256: await sha256Of(Buffer.from('nope')), size },
        }),
        BlobChecksumMismatchError,
      );
      await assertNothingStored('expected/big');
      assert.deepEqual(await h.leftovers(), []);
      const stored = await store.put('expected/big', generatedStream(size), {
        expected: { sha256: generatedSha256(size), size },
      });
      assert.equal(stored.sha256, generatedSha256(size));
      assert.equal((await store.head('expected/big'))?.size, size);
      await store.delete('expected/big');
    });

    it('keeps the previous version when a replacing put fails', async () => {
      await store.put('keep', text('original'));
      await assert.rejects(store.put('keep', text('far too long'), { maxBytes: 8 }), BlobTooLargeError);
      await assert.rejects(store.put('keep', failingStream(100_000)), /source broke/);
      assert.equal(await getText('keep'), 'original');
    });

    it('rejects when the source errors midway and stores nothing', async () => {
      await assert.rejects(store.put('broken/small', failingStream(200_000)), /source broke/);
      await assertNothingStored('broken/small');
      await assert.rejects(store.put('broken/multipart', failingStream(18 * MiB)), /source broke/);
      await assertNothingStored('broken/multipart');
    });

    it('rejects when the source is destroyed without an error (dropped client) and stores nothing', async () => {
      await assert.rejects(store.put('dropped', failingStream(10 * MiB, null)));
      await assertNothingStored('dropped');
    });

    it('round-trips a 20 MiB generated stream (multipart on S3) with the right hash', async () => {
      const size = 20 * MiB + 12_345;
      const stored = await store.put('tenants/t1/documents/large', generatedStream(size));
      assert.deepEqual(stored, { size, sha256: generatedSha256(size) });
      assert.deepEqual(await store.head('tenants/t1/documents/large'), { size });
      assert.equal(await sha256Of(await store.get('tenants/t1/documents/large')), stored.sha256);
      // A range across the 8 MiB part boundary comes back byte-exact.
      const whole = await readAll(await store.get('tenants/t1/documents/large'));
      const part = await readAll(
        await store.get('tenants/t1/documents/large', { start: 8 * MiB - 10, end: 8 * MiB + 9 }),
      );
      assert.ok(part.equals(whole.subarray(8 * MiB - 10, 8 * MiB + 10)));
    });

    it('rejects unsafe keys', async () => {
      for (const key of [
        '',
        '/etc/passwd',
        '../escape',
        'a/../../b',
        'a/./b',
        'a//b',
        'a/',
        'nul\0byte',
        'back\\slash',
      ]) {
        await assert.rejects(store.put(key, text('x')), InvalidBlobKeyError, JSON.stringify(key));
        await assert.rejects(store.get(key), InvalidBlobKeyError, JSON.stringify(key));
        await assert.rejects(store.head(key), InvalidBlobKeyError, JSON.stringify(key));
        await assert.rejects(store.delete(key), InvalidBlobKeyError, JSON.stringify(key));
      }
      assert.deepEqual(await h.leftovers(), []);
    });

    it('putChunks and getChunks: the same bytes, size and sha256 as put and get, from a reused buffer', async () => {
      const bytes = randomBytes(3 * MiB + 123);
      const buffer = Buffer.alloc(64 * 1024); // the producer reuses it once each write resolved
      const stored = await store.putChunks('chunks/one', async (write) => {
        for (let at = 0; at < bytes.length; at += buffer.length) {
          const n = bytes.copy(buffer, 0, at, Math.min(at + buffer.length, bytes.length));
          await write(buffer.subarray(0, n));
        }
      });
      assert.deepEqual(stored, { size: bytes.length, sha256: await sha256Of(bytes) });
      const parts: Buffer[] = [];
      const size = await store.getChunks('chunks/one', (chunk) => {
        parts.push(Buffer.from(chunk)); // copied: valid only during the call
      });
      assert.equal(size, bytes.length);
      assert.ok(Buffer.concat(parts).equals(bytes));
      assert.ok((await readAll(await store.get('chunks/one'))).equals(bytes));
      await assert.rejects(
        store.getChunks('chunks/missing', () => {}),
        BlobNotFoundError,
      );
      assert.equal(
        await store.getChunks('chunks/one', async () => {
          await new Promise((r) => setTimeout(r, 1));
        }),
        bytes.length,
      );
    });

    it('putChunks refuses bytes other than the expected ones, past maxBytes, or a failing producer, storing nothing', async () => {
      const wanted = Buffer.from('the recorded bytes');
      const expected = { sha256: await sha256Of(wanted), size: wanted.length };
      const once = (b: Buffer) => async (write: (c: Uint8Array) => Promise<void>) => write(b);
      await assert.rejects(
        store.putChunks('chunks/other', once(Buffer.from('other bytes, same size'.slice(0, wanted.length))), {
          expected,
        }),
        BlobChecksumMismatchError,
      );
      await assertNothingStored('chunks/other');
      await assert.rejects(store.putChunks('chunks/big', once(Buffer.alloc(11)), { maxBytes: 10 }), BlobTooLargeError);
      await assertNothingStored('chunks/big');
      await assert.rejects(
        store.putChunks('chunks/failing', async (write) => {
          await write(Buffer.from('half'));
          throw new Error('source gone');
        }),
        /source gone/,
      );
      await assertNothingStored('chunks/failing');
      assert.deepEqual(await store.putChunks('chunks/ok', once(wanted), { expected }), expected);
    });

    it('a batch of puts is stored once sync() resolved; a refused one is not', async () => {
      const batch = new SyncBatch(2);
      const keys = Array.from({ length: 7 }, (_, i) => `tenants/t9/documents/batch-${i}`);
      for (const [i, key] of keys.entries()) {
        if (i % 2 === 0) await store.put(key, text(`body ${i}`), { batch });
        else await store.putChunks(key, async (write) => write(Buffer.from(`body ${i}`)), { batch });
      }
      const wanted = Buffer.from('wanted');
      await assert.rejects(
        store.putChunks('tenants/t9/documents/refused', async (write) => write(Buffer.from('other!')), {
          batch,
          expected: { sha256: await sha256Of(wanted), size: wanted.length },
        }),
        BlobChecksumMismatchError,
      );
      await batch.sync();
      for (const [i, key] of keys.entries()) assert.equal(await getText(key), `body ${i}`);
      await assertNothingStored('tenants/t9/documents/refused');
    });

    it('a batch of puts whose producer hands its chunks over: every byte in order once sync() resolved; a refused or failing one leaves nothing', async () => {
      const batch = new SyncBatch(3, 6 * MiB);
      // Fresh chunks of 1.5 MiB, more per put than a put may queue (4 MiB), so writes are held and waited for.
      const body = (i: number) => Array.from({ length: 5 }, (_, c) => Buffer.alloc(1.5 * MiB, (i * 16 + c) % 251));
      const keys = Array.from({ length: 4 }, (_, i) => `tenants/t9/documents/handed-${i}`);
      const expected: { sha256: string; size: number }[] = [];
      for (const [i, key] of keys.entries()) {
        const whole = Buffer.concat(body(i));
        expected.push({ sha256: await sha256Of(whole), size: whole.length });
        const stored = await store.putChunks(
          key,
          async (write) => {
            for (const chunk of body(i)) await write(chunk);
          },
          { batch, handsOverChunks: true, expected: expected[i] },
        );
        assert.deepEqual(stored, expected[i]);
      }
      await assert.rejects(
        store.putChunks(
          'tenants/t9/documents/handed-refused',
          async (write) => {
            for (const chunk of body(9)) await write(chunk);
          },
          { batch, handsOverChunks: true, expected: expected[0] },
        ),
        BlobChecksumMismatchError,
      );
      await assert.rejects(
        store.putChunks(
          'tenants/t9/documents/handed-failing',
          async (write) => {
            await write(Buffer.alloc(MiB, 1));
            throw new Error('archive cut');
          },
          { batch, handsOverChunks: true },
        ),
        /archive cut/,
      );
      await batch.sync();
      for (const [i, key] of keys.entries()) {
        const bytes = await readAll(await store.get(key));
        assert.equal(bytes.length, expected[i]!.size);
        assert.equal(await sha256Of(bytes), expected[i]!.sha256);
      }
      await assertNothingStored('tenants/t9/documents/handed-refused');
      await assertNothingStored('tenants/t9/documents/handed-failing');
    });

    it('pings when reachable and fails when not', async () => {
      await store.ping();
      await assert.rejects(h.broken().ping());
    });
  });
}

describe('LocalBlobStore specifics', () => {
  it('never writes outside its root and keeps its temp folder private', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'blobs-local-'));
    try {
      const store = new LocalBlobStore(path.join(dir, 'blobs'));
      await assert.rejects(store.put('.tmp/x', Readable.from([Buffer.from('x')])), InvalidBlobKeyError);
      await store.put('tenants/a/documents/b', Readable.from([Buffer.from('x')]));
      assert.deepEqual(await fsp.readdir(dir), ['blobs']);
      assert.equal(await fsp.readFile(path.join(dir, 'blobs/tenants/a/documents/b'), 'utf8'), 'x');
      await store.delete('tenants/a/documents/b');
      assert.deepEqual(
        await fsp.readdir(path.join(dir, 'blobs/tenants/a/documents')),
        [],
        'delete prunes nothing else',
      );
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('LocalBlobStore batches without syncfs', () => {
  it('fsyncs file by file when `sync -f` cannot run, and the batch still completes', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'blobs-nosyncfs-'));
    const pathBefore = process.env.PATH;
    try {
      const store = new LocalBlobStore(path.join(dir, 'blobs'));
      const batch = new SyncBatch();
      for (let i = 0; i < 6; i++)
        await store.putChunks(`tenants/a/documents/${i}`, async (write) => write(Buffer.from(`file ${i}`)), {
          batch,
          handsOverChunks: true,
        });
      process.env.PATH = dir; // no `sync` here: syncFilesystem answers false
      await batch.sync();
      for (let i = 0; i < 6; i++)
        assert.equal(await fsp.readFile(path.join(dir, `blobs/tenants/a/documents/${i}`), 'utf8'), `file ${i}`);
    } finally {
      process.env.PATH = pathBefore;
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it('trusts syncfs only where it reports writeback errors (Linux 5.8 and later)', () => {
    assert.equal(syncfsReportsErrors('linux', '6.18.44-fc-v657'), true);
    assert.equal(syncfsReportsErrors('linux', '5.8.0-1-amd64'), true);
    assert.equal(syncfsReportsErrors('linux', '5.4.0-150-generic'), false);
    assert.equal(syncfsReportsErrors('linux', '4.19.0'), false);
    assert.equal(syncfsReportsErrors('darwin', '23.1.0'), false);
  });
});

describe('SyncBatch', () => {
  it('holds at most maxBytes of deferred work (one over it may run alone)', async () => {
    const batch = new SyncBatch(10, 100);
    let held = 0;
    let most = 0;
    for (let i = 0; i < 6; i++) {
      held += 40;
      most = Math.max(most, held);
      await batch.defer(
        new Promise<void>((resolve) =>
          setTimeout(() => {
            held -= 40;
            resolve();
          }, 2),
        ),
        40,
      );
    }
    await batch.sync();
    assert.ok(most <= 120, `at most maxBytes plus one put in flight (saw ${most})`);
  });

  it('waits for deferred work, runs each once-per-batch job once (files before folders), and throws the first failure', async () => {
    const batch = new SyncBatch(2);
    const ran: string[] = [];
    let inFlight = 0;
    let most = 0;
    for (let i = 0; i < 5; i++) {
      await batch.defer(
        (async () => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          batch.atSync('dir:a', async () => {
            ran.push('dir:a');
          });
          batch.atSync(
            `file:${i}`,
            async () => {
              ran.push(`file:${i}`);
            },
            0,
          );
        })(),
      );
    }
    assert.ok(most <= 2, `at most the limit in flight (saw ${most})`);
    await batch.sync();
    assert.deepEqual(ran.slice(-1), ['dir:a']);
    assert.deepEqual(ran.filter((r) => r === 'dir:a').length, 1);
    assert.equal(ran.length, 6);

    await batch.defer(Promise.reject(new Error('first')));
    await batch.defer(Promise.reject(new Error('second')));
    await assert.rejects(batch.sync(), /first/);
    await batch.sync(); // reported once
  });
});
