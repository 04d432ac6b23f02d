import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { TestApp } from '../../support/app.ts';
import type { TestTenant } from '../../support/fixtures.ts';
import { type S3TestServer, startS3Server } from '../../support/s3-server.ts';

export const CREDENTIALS = { accessKeyId: 'AKIATESTCUSTOMER0001', secretAccessKey: 'customer-secret-do-not-show' };

/** An S3-compatible server (the test one) with its buckets made. */
export async function s3WithBuckets(...buckets: string[]): Promise<S3TestServer> {
  const server = await startS3Server();
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: CREDENTIALS,
  });
  for (const bucket of buckets) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return server;
}

/** The environment of a test app with a dedicated store on `dedicated` and fast retries. */
export function storageEnv(dedicated: S3TestServer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    DEDICATED_STORAGE_URL: `s3://dedicated/tenants/{tenant_id}?endpoint=${encodeURIComponent(dedicated.endpoint)}&force_path_style=true`,
    DEDICATED_STORAGE_ACCESS_KEY_ID: 'dedicated-key',
    DEDICATED_STORAGE_SECRET_ACCESS_KEY: 'dedicated-secret',
    STORAGE_MIGRATION_RETRY_DELAYS: '0.05,0.05,0.05',
    ...extra,
  };
}

/** `PUT /admin/storage/config/{tenant}` with the customer's bucket on `server`. */
export function putCustomer(
  t: TestApp,
  tenantId: string,
  server: S3TestServer,
  overrides: Record<string, unknown> = {},
) {
  return t.admin({
    method: 'PUT',
    url: `/api/v1/admin/storage/config/${tenantId}`,
    payload: {
      endpoint: server.endpoint,
      bucket: 'customer',
      region: 'eu-west-1',
      prefix: 'docuvault',
      access_key_id: CREDENTIALS.accessKeyId,
      secret_access_key: CREDENTIALS.secretAccessKey,
      force_path_style: true,
      ...overrides,
    },
  });
}

export function migrate(t: TestApp, tenantId: string, target: string, extra: Record<string, unknown> = {}) {
  return t.admin({
    method: 'POST',
    url: `/api/v1/admin/storage/config/${tenantId}/migrate`,
    payload: { target_provider: target, ...extra },
  });
}

export async function migrateOk(t: TestApp, tenantId: string, target: string, extra: Record<string, unknown> = {}) {
  const res = await migrate(t, tenantId, target, extra);
  assert.equal(res.statusCode, 202, res.body);
  return res.json();
}

// biome-ignore lint/suspicious/noExplicitAny: the status view is JSON.
export async function statusView(t: TestApp, tenantId: string): Promise<any> {
  const res = await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${tenantId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Polls the status view until the migration reaches one of `statuses`. */
// biome-ignore lint/suspicious/noExplicitAny: the status view is JSON.
export async function waitForStatus(
  t: TestApp,
  tenantId: string,
  statuses: string[],
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await statusView(t, tenantId);
    if (statuses.includes(view.status)) return view;
    if (Date.now() > deadline) assert.fail(`migration stayed ${view.status} (${JSON.stringify(view)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Downloads a document and answers its bytes (asserting 200). */
export async function download(t: TestApp, tenant: TestTenant, id: string): Promise<Buffer> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/download`, headers: tenant.headers });
  assert.equal(res.statusCode, 200, `download ${id}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return res.rawPayload;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Distinct text files (plain text passes the content sniffing of uploads). */
export function textFile(i: number, size = 2048): Buffer {
  const line = `file ${i} line of text for the storage migration test\n`;
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
}
