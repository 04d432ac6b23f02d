import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { digestOf } from '../../../src/providers/blobs/hashing-counter.ts';
import { uploadOk } from '../documents/helpers.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { FaultyBlobStore } from './faulty-blob-store.ts';
import {
  download,
  migrate,
  migrateOk,
  s3WithBuckets,
  sha256,
  statusView,
  storageEnv,
  textFile,
  waitForStatus,
} from './helpers.ts';

const dedicatedS3 = await s3WithBuckets('dedicated');
after(() => dedicatedS3.close());

/** A tenant with `count` uploaded files and a fault-injecting dedicated store, built and ready. */
async function tenantWithFaultyDedicated(t: TestApp, count: number) {
  const tenant = await createTenant(t);
  const { files, ids } = await uploadFiles(t, tenant, count);
  const faulty = faultyDedicated(t, tenant.tenantId);
  const providers = t.container.modules.use('storageProviders');
  await providers.storeFor(tenant.tenantId, 'dedicated');
  return { tenant, files, ids, faulty, providers };
}

/** Puts a fault-injecting store in front of the tenant's dedicated store, in this process. */
function faultyDedicated(t: TestApp, tenantId: string): FaultyBlobStore {
  const providers = t.container.modules.use('storageProviders');
  let faulty: FaultyBlobStore | null = null;
  providers.intercept((id, provider, store) => {
    if (id !== tenantId || provider !== 'dedicated') return store;
    faulty ??= new FaultyBlobStore(store);
    return faulty;
  });
  return new Proxy({} as FaultyBlobStore, {
    get: (_target, name) => {
      if (!faulty) throw new Error('the dedicated store was not built yet');
      const value = Reflect.get(faulty, name);
      return typeof value === 'function' ? value.bind(faulty) : value;
    },
  });
}

async function uploadFiles(t: TestApp, tenant: TestTenant, count: number, seed = 0) {
  const files = Array.from({ length: count }, (_, i) => textFile(seed + i, 3000 + i));
  const ids: string[] = [];
  for (const [i, content] of files.entries())
    ids.push(await uploadOk(t, tenant.headers, { filename: `f${seed + i}.txt`, content }));
  return { files, ids };
}

const docKey = (tenant: TestTenant, id: string) => `tenants/${tenant.tenantId}/documents/${id}`;

async function usage(t: TestApp, tenant: TestTenant): Promise<{ documents: number; storage_bytes: number }> {
  return (await t.admin({ method: 'GET', url: `/api/v1/admin/tenants/${tenant.tenantId}` })).json().usage;
}

describeEachDialect(
  'storage migration under faults',
  (ctx) => {
    it('catches an object corrupted in the target by its checksum and copies it again', async () => {
      const t = ctx();
      const { tenant, files, ids, faulty, providers } = await tenantWithFaultyDedicated(t, 3);
      faulty.corruptOnce.add(docKey(tenant, ids[1]!));
      await migrateOk(t, tenant.tenantId, 'dedicated');
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(faulty.puts.get(docKey(tenant, ids[1]!)), 2, 'the corrupted copy was made again');
      const inner = faulty.inner;
      for (const [i, id] of ids.entries())
        assert.equal((await digestOf(await inner.get(docKey(tenant, id)))).sha256, sha256(files[i]!));
      providers.intercept(null);
    });

    it('a copy corrupted on its way into S3 is refused by the server checksum and made again', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const { files, ids } = await uploadFiles(t, tenant, 2);
      // The dedicated URL's prefix is `tenants/{tenant_id}`, in front of the document's own key.
      dedicatedS3.corruptNextBody('dedicated', `tenants/${tenant.tenantId}/${docKey(tenant, ids[0]!)}`);
      const puts = dedicatedS3.operations.get('PutObject') ?? 0;
      await migrateOk(t, tenant.tenantId, 'dedicated');
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.migrated_files, 2);
      // The probe, the refused copy, the copy made again, the other file.
      assert.ok((dedicatedS3.operations.get('PutObject') ?? 0) >= puts + 4, 'the refused copy was sent again');
      const target = await t.container.modules.use('storageProviders').storeFor(tenant.tenantId, 'dedicated');
      for (const [i, id] of ids.entries())
        assert.equal((await digestOf(await target.get(docKey(tenant, id)))).sha256, sha256(files[i]!));
    });

    it('retries a failing file on the schedule, lists it, serves it from the source, and retries it on request', async () => {
      const t = ctx();
      const { tenant, files, ids, faulty, providers } = await tenantWithFaultyDedicated(t, 3);
      const broken = docKey(tenant, ids[2]!);
      faulty.failing.add(broken);
      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed_with_errors', JSON.stringify(done));
      assert.equal(done.failed_files, 1);
      assert.equal(done.migrated_files, 2);
      assert.equal(faulty.puts.get(broken), 4, 'the first attempt and three automatic retries');
      const failed = (
        await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${record.id}/failed` })
      ).json();
      assert.equal(failed.total_failed, 1);
      assert.equal(failed.failed_files[0].file_id, ids[2]);
      assert.equal(failed.failed_files[0].file_path, broken);
      assert.equal(failed.failed_files[0].attempts, 4);
      assert.match(failed.failed_files[0].error, /injected fault/);
      assert.ok(failed.failed_files[0].last_attempt);
      // Each document row names where its bytes are: the target, except the failed file (only in the source).
      const placed = await t.container.database.db
        .selectFrom('documents')
        .select(['id', 'storage_provider'])
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      assert.deepEqual(
        Object.fromEntries(placed.map((r) => [r.id, r.storage_provider])),
        Object.fromEntries(ids.map((id, i) => [id, i === 2 ? 'shared' : 'dedicated'])),
      );
      // Still served, from the source.
      assert.equal(sha256(await download(t, tenant, ids[2]!)), sha256(files[2]!));

      faulty.failing.clear();
      const retried = await t.admin({ method: 'POST', url: `/api/v1/admin/storage/migrations/${record.id}/retry` });
      assert.equal(retried.statusCode, 200, retried.body);
      assert.equal(retried.json().status, 'in_progress');
      const after = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(after.status, 'completed', JSON.stringify(after));
      assert.equal(after.migrated_files, 3);
      assert.equal(faulty.puts.get(docKey(tenant, ids[0]!)), 1, 'retry re-ran only the failed file');
      assert.equal(
        (await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${record.id}/failed` })).json()
          .total_failed,
        0,
      );
      assertError(
        await t.admin({ method: 'POST', url: `/api/v1/admin/storage/migrations/${record.id}/retry` }),
        409,
        'conflict',
      );
      assertError(
        await t.admin({ method: 'POST', url: `/api/v1/admin/storage/migrations/${record.id}/cancel`, payload: {} }),
        409,
        'conflict',
      );
      providers.intercept(null);
    });

    it('carries uploads made during the copy through the cutover check', async () => {
      const t = ctx();
      const { tenant, files, ids, faulty, providers } = await tenantWithFaultyDedicated(t, 2);
      for (const id of ids) faulty.held.add(docKey(tenant, id));
      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      assert.equal(record.total_files, 2);
      const deadline = Date.now() + 10_000;
      while ((faulty.puts.get(docKey(tenant, ids[0]!)) ?? 0) === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const during = await uploadOk(t, tenant.headers, { filename: 'during.txt', content: textFile(300) });
      faulty.release();
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.total_files, 3, 'the upload joined the inventory at cutover');
      assert.equal(done.migrated_files, 3);
      assert.equal(done.total_bytes, files[0]!.length + files[1]!.length + textFile(300).length);
      assert.equal(faulty.puts.get(docKey(tenant, during)), 1, 'verified where it was uploaded, not copied again');
      assert.equal(sha256(await download(t, tenant, during)), sha256(textFile(300)));
      const stored = await t.container.database.db
        .selectFrom('documents')
        .select('id')
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      assert.equal(stored.length, 3);
      providers.intercept(null);
    });

    it('keeps uploads, downloads and deletes working during the copy; cancel stops it; a restart finishes', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const otherId = await uploadOk(t, other.headers, { filename: 'other.txt', content: textFile(500) });
      const { files, ids } = await uploadFiles(t, tenant, 4);
      const faulty = faultyDedicated(t, tenant.tenantId);
      const providers = t.container.modules.use('storageProviders');
      const shared = providers.shared;
      await providers.storeFor(tenant.tenantId, 'dedicated');
      for (const id of ids) faulty.held.add(docKey(tenant, id));
      const before = await usage(t, tenant);

      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      const deadline = Date.now() + 10_000;
      while ((faulty.puts.get(docKey(tenant, ids[0]!)) ?? 0) === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const running = await statusView(t, tenant.tenantId);
      assert.equal(running.status, 'in_progress');
      assert.equal(running.progress_percent, 0);
      assert.match(running.current_file, new RegExp(`^tenants/${tenant.tenantId}/documents/`));
      assertError(await migrate(t, tenant.tenantId, 'customer'), 409, 'conflict');

      // Upload during the copy: to the new store. Download: from wherever the file is. Quota: one copy.
      const during = await uploadOk(t, tenant.headers, { filename: 'during.txt', content: textFile(100) });
      assert.ok(await faulty.inner.head(docKey(tenant, during)), 'the new upload is in the target');
      assert.equal(await shared.head(docKey(tenant, during)), null);
      for (const [i, id] of ids.entries()) assert.equal(sha256(await download(t, tenant, id)), sha256(files[i]!));
      const now = await usage(t, tenant);
      assert.equal(now.storage_bytes, before.storage_bytes + textFile(100).length, 'each file counts once');
      // Delete during the copy: both copies go.
      const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/documents/${ids[3]}`, headers: tenant.headers });
      assert.equal(del.statusCode, 200, del.body);

      const cancel = await t.admin({
        method: 'POST',
        url: `/api/v1/admin/storage/migrations/${record.id}/cancel`,
        payload: { reason: 'maintenance window over' },
      });
      assert.equal(cancel.statusCode, 200, cancel.body);
      assert.equal(cancel.json().status, 'cancelled');
      assert.equal(cancel.json().cancel_reason, 'maintenance window over');
      faulty.release();
      const afterCancel = await uploadOk(t, tenant.headers, { filename: 'after-cancel.txt', content: textFile(200) });
      assert.ok(await shared.head(docKey(tenant, afterCancel)), 'after a cancel new uploads go to the source');
      assert.equal(await faulty.inner.head(docKey(tenant, afterCancel)), null);
      assert.equal(
        sha256(await download(t, tenant, during)),
        sha256(textFile(100)),
        'what reached the target stays readable',
      );
      const eventually = Date.now() + 10_000;
      while ((await faulty.inner.head(docKey(tenant, ids[3]!))) !== null && Date.now() < eventually)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(await faulty.inner.head(docKey(tenant, ids[3]!)), null, 'the deleted document is in neither store');
      assert.equal(await shared.head(docKey(tenant, ids[3]!)), null);
      assert.equal((await statusView(t, tenant.tenantId)).status, 'cancelled');

      const restart = await migrateOk(t, tenant.tenantId, 'dedicated');
      assert.notEqual(restart.id, record.id);
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      for (const id of [ids[0]!, ids[1]!, ids[2]!, during, afterCancel])
        assert.ok(await faulty.inner.head(docKey(tenant, id)), `${id} in the target`);
      for (const [i, id] of ids.slice(0, 3).entries())
        assert.equal(sha256(await download(t, tenant, id)), sha256(files[i]!));
      assert.equal(sha256(await download(t, tenant, afterCancel)), sha256(textFile(200)));
      assert.equal(
        sha256(await download(t, other, otherId)),
        sha256(textFile(500)),
        "the other tenant's file is untouched",
      );
      assert.ok(await shared.head(docKey(other, otherId)));
      const history = (
        await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${tenant.tenantId}/history` })
      ).json();
      assert.deepEqual(
        history.migrations.map((m: { status: string }) => m.status),
        ['completed', 'cancelled'],
      );
      providers.intercept(null);
    });
  },
  { worker: true, env: storageEnv(dedicatedS3) },
);
