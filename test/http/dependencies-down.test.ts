import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { isDependencyUnavailable } from '../../src/lib/dependency-errors.ts';
import { upload, uploadOk } from '../modules/documents/helpers.ts';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.ts';
import { createTestStore, type TestStore } from '../support/databases.ts';
import { assertError, createTenant, type TestTenant } from '../support/fixtures.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';

const BUCKET = 'dependencies-down';

function assertUnavailable(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): { error: string; code: string; message: string };
}) {
  assertError(res as never, 503, 'service_unavailable');
  assert.equal(res.json().code, 'SERVICE_UNAVAILABLE');
  assert.match(String(res.headers['retry-after']), /^\d+$/);
  assert.doesNotMatch(res.json().message, /ECONNREFUSED|127\.0\.0\.1|select|insert/i, 'nothing of the cause leaks');
}

for (const dialect of DIALECTS) {
  describe(`The S3 store stops answering mid-run [${dialect}]`, () => {
    let s3: S3TestServer;
    let t: TestApp;
    let tenant: TestTenant;
    before(async () => {
      s3 = await startS3Server();
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      });
      await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
      client.destroy();
      t = await startTestApp(dialect, {
        env: {
          BLOB_STORE: 's3',
          S3_ENDPOINT: s3.endpoint,
          S3_BUCKET: BUCKET,
          S3_FORCE_PATH_STYLE: 'true',
          S3_ACCESS_KEY_ID: 'x',
          S3_SECRET_ACCESS_KEY: 'y',
        },
      });
      tenant = await createTenant(t);
    });
    after(async () => {
      await t.close();
    });

    it('answers 503 service_unavailable with Retry-After for uploads and downloads, and stores nothing half', async () => {
      const id = await uploadOk(t, tenant.headers, {
        filename: 'before.txt',
        content: Buffer.from('stored while S3 answered\n'),
      });
      assert.equal(
        (await t.app.inject({ url: `/api/v1/documents/${id}/download`, headers: tenant.headers })).statusCode,
        200,
      );
      const documentsBefore = (await t.app.inject({ url: '/api/v1/documents', headers: tenant.headers })).json().total;

      await s3.close();

      assertUnavailable(await t.app.inject({ url: `/api/v1/documents/${id}/download`, headers: tenant.headers }));
      assertUnavailable(
        await upload(t, tenant.headers, { filename: 'during.txt', content: Buffer.from('S3 is down\n') }),
      );
      // The database still answers: reads that need no bytes work, and the refused upload left no row.
      const list = await t.app.inject({ url: '/api/v1/documents', headers: tenant.headers });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().total, documentsBefore);
      const ready = await t.app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.notEqual(ready.json().checks.blobs, 'ok');
    });
  });
}

describe('PostgreSQL stops answering mid-run', {
  skip: DIALECTS.includes('postgres') ? false : 'PostgreSQL is not available',
}, () => {
  let t: TestApp | undefined;
  let tenant: TestTenant;
  let store: TestStore;
  let proxy: net.Server;
  const sockets = new Set<net.Socket>();

  before(async () => {
    // The service reaches PostgreSQL through a TCP relay this test can cut, as a network failure would.
    store = await createTestStore('postgres');
    const target = new URL(store.url!);
    proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const relayed = new URL(store.url!);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((proxy.address() as net.AddressInfo).port);
    t = await startTestApp('postgres', { env: { DATABASE_URL: relayed.href } });
    tenant = await createTenant(t);
  });
  after(async () => {
    proxy?.close();
    for (const s of sockets) s.destroy();
    await t?.close();
    await store?.drop();
  });

  it('answers 503 service_unavailable with Retry-After while the database is unreachable', async () => {
    const app = t!;
    assert.equal((await app.app.inject({ url: '/api/v1/folders', headers: tenant.headers })).statusCode, 200);
    await new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    assertUnavailable(await app.app.inject({ url: '/api/v1/folders', headers: tenant.headers }));
    assertUnavailable(
      await app.app.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: tenant.headers,
        payload: { name: 'Nowhere' },
      }),
    );
    assert.equal((await app.app.inject({ url: '/readyz' })).statusCode, 503);
  });
});

describe('isDependencyUnavailable', () => {
  it('recognises unreachable and overloaded dependencies, and nothing else', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    assert.equal(isDependencyUnavailable(refused), true);
    assert.equal(isDependencyUnavailable(new AggregateError([refused], 'connect failed')), true);
    assert.equal(isDependencyUnavailable(new Error('wrapped', { cause: refused })), true);
    assert.equal(
      isDependencyUnavailable(Object.assign(new Error('the database system is shutting down'), { code: '57P01' })),
      true,
    );
    assert.equal(
      isDependencyUnavailable(
        Object.assign(new Error('SlowDown'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }),
      ),
      true,
    );
    assert.equal(isDependencyUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isDependencyUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
    assert.equal(isDependencyUnavailable(new TypeError('x is not a function')), false);
    assert.equal(
      isDependencyUnavailable(
        Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } }),
      ),
      false,
    );
  });
});
