import { after, before, describe } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { DialectName } from '../../../src/db/database.ts';
import { DIALECTS, startTestApp, type TestApp, type TestAppOptions } from '../../support/app.ts';
import { type S3TestServer, startS3Server } from '../../support/s3-server.ts';
import { localBlobFiles } from './helpers.ts';

export type BlobStoreName = 'local' | 's3';
const BUCKET = 'documents-test';

/** A test app plus a view of what its blob store holds. */
export interface BlobTestContext {
  t: TestApp;
  store: BlobStoreName;
  /** Stored object keys (temp files and unfinished multipart uploads count as leftovers). */
  storedKeys(): string[];
  /** Stored keys of document files (not thumbnails, which workers add in the background). */
  documentKeys(): string[];
  /** Half-written data: local temp files, or S3 multipart uploads neither completed nor aborted. */
  leftovers(): string[];
}

/**
 * Declares `body` for every dialect on both blob stores: the local folder, and S3 through the
 * local S3-compatible test server (BLOB_STORE=s3).
 */
export function describeEachBlobStore(
  name: string,
  body: (ctx: () => BlobTestContext, meta: { dialect: DialectName; store: BlobStoreName }) => void,
  options: TestAppOptions = {},
): void {
  for (const dialect of DIALECTS) {
    for (const store of ['local', 's3'] as const) {
      describe(`${name} [${dialect}, ${store}]`, () => {
        let ctx: BlobTestContext | undefined;
        let s3: S3TestServer | undefined;
        before(async () => {
          let env = options.env ?? {};
          if (store === 's3') {
            s3 = await startS3Server();
            const client = new S3Client({
              endpoint: s3.endpoint,
              region: 'us-east-1',
              forcePathStyle: true,
              credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
            });
            await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
            client.destroy();
            env = {
              ...env,
              BLOB_STORE: 's3',
              S3_ENDPOINT: s3.endpoint,
              S3_BUCKET: BUCKET,
              S3_FORCE_PATH_STYLE: 'true',
              S3_ACCESS_KEY_ID: 'x',
              S3_SECRET_ACCESS_KEY: 'y',
            };
          }
          const t = await startTestApp(dialect, { ...options, env });
          const storedKeys = () => (s3 ? s3.keys(BUCKET) : localBlobFiles(t).blobs);
          ctx = {
            t,
            store,
            storedKeys,
            documentKeys: () => storedKeys().filter((k) => k.includes('/documents/')),
            leftovers: () => (s3 ? s3.pendingUploads(BUCKET).map((u) => u.key) : localBlobFiles(t).temp),
          };
        });
        after(async () => {
          await ctx?.t.close();
          await s3?.close();
        });
        body(
          () => {
            if (!ctx) throw new Error('test app not started');
            return ctx;
          },
          { dialect, store },
        );
      });
    }
  }
}
