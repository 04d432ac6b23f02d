import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, it } from 'node:test';
import { newId } from '../../../src/lib/ids.ts';
import { uploadOk } from '../documents/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { documentRow } from '../../support/document-rows.ts';
import { assertError, createTenant, lastMailTo } from '../../support/fixtures.ts';
import {
  CREDENTIALS,
  download,
  migrate,
  migrateOk,
  putCustomer,
  s3WithBuckets,
  sha256,
  statusView,
  storageEnv,
  textFile,
  waitForStatus,
} from './helpers.ts';
import { startS3AuthFront } from './s3-auth-front.ts';

const customerS3 = await s3WithBuckets('customer');
const dedicatedS3 = await s3WithBuckets('dedicated');
const checkedS3 = await startS3AuthFront(customerS3.endpoint, CREDENTIALS.accessKeyId);
after(async () => {
  await checkedS3.close();
  await customerS3.close();
  await dedicatedS3.close();
});

const ADMIN_MAIL = 'ops@example.com';
const keysOf = (tenantId: string) => customerS3.keys('customer').filter((k) => k.includes(tenantId));

describeEachDialect(
  'storage configuration and migration API',
  (ctx) => {
    it('answers only the administrator key', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      for (const url of [
        `/api/v1/admin/storage/config/${tenant.tenantId}`,
        `/api/v1/admin/storage/migrations/${tenant.tenantId}`,
      ]) {
        assertError(await t.app.inject({ method: 'GET', url }), 401, 'unauthorized');
        // A tenant's own credentials do not reach administrator endpoints either.
        const res = await t.app.inject({ method: 'GET', url, headers: tenant.headers });
        assert.equal(res.statusCode, 401, res.body);
      }
    });

    it('shows a new tenant on shared storage; 404 for an unknown tenant', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const res = await t.admin({ method: 'GET', url: `/api/v1/admin/storage/config/${tenant.tenantId}` });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.current_provider, 'shared');
      assert.deepEqual(body.available_targets, ['dedicated', 'customer']);
      assert.equal(body.targets.dedicated.configured, true);
      assert.match(body.targets.dedicated.location, new RegExp(`/tenants/${tenant.tenantId}$`));
      assert.deepEqual(body.targets.customer, { configured: false });
      assertError(
        await t.admin({ method: 'GET', url: '/api/v1/admin/storage/config/00000000-0000-7000-8000-000000000000' }),
        404,
        'not_found',
      );
      assertError(
        await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${tenant.tenantId}` }),
        404,
        'not_found',
      );
      const history = await t.admin({
        method: 'GET',
        url: `/api/v1/admin/storage/migrations/${tenant.tenantId}/history`,
      });
      assert.deepEqual(history.json(), { migrations: [], count: 0 });
    });

    it('refuses a customer bucket that fails the probe, storing nothing', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const body = assertError(
        await putCustomer(t, tenant.tenantId, customerS3, { bucket: 'no-such-bucket' }),
        400,
        'validation_error',
      );
      assert.equal(body.details.errors[0].field, 'bucket');
      const badKey = assertError(
        await putCustomer(t, tenant.tenantId, customerS3, {
          endpoint: checkedS3.endpoint,
          access_key_id: 'AKIAWRONGKEY',
        }),
        400,
        'validation_error',
      );
      assert.equal(badKey.details.errors[0].field, 'access_key_id');
      assert.match(badKey.details.errors[0].message, /InvalidAccessKeyId/);
      assert.equal(
        (await putCustomer(t, tenant.tenantId, customerS3, { endpoint: checkedS3.endpoint })).statusCode,
        200,
        'the right key passes the same front',
      );
      await t.container.database.db
        .deleteFrom('storage_customer_targets')
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      const unreachable = assertError(
        await putCustomer(t, tenant.tenantId, customerS3, { endpoint: 'http://127.0.0.1:9' }),
        400,
        'validation_error',
      );
      assert.equal(unreachable.details.errors[0].field, 'endpoint');
      assert.doesNotMatch(JSON.stringify(unreachable), new RegExp(CREDENTIALS.secretAccessKey));
      const view = await t.admin({ method: 'GET', url: `/api/v1/admin/storage/config/${tenant.tenantId}` });
      assert.deepEqual(view.json().targets.customer, { configured: false });
      assert.deepEqual(keysOf(tenant.tenantId), [], 'the probe object is gone');
      assertError(await putCustomer(t, tenant.tenantId, customerS3, { surprise: true }), 400, 'validation_error');
    });

    it('keeps the customer secret encrypted and masked', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const res = await putCustomer(t, tenant.tenantId, customerS3);
      assert.equal(res.statusCode, 200, res.body);
      const customer = res.json().targets.customer;
      assert.equal(customer.configured, true);
      assert.equal(customer.bucket, 'customer');
      assert.equal(customer.secret_access_key, '********');
      assert.equal(customer.access_key_id, `************${CREDENTIALS.accessKeyId.slice(-4)}`);
      assert.doesNotMatch(res.body, new RegExp(`${CREDENTIALS.secretAccessKey}|${CREDENTIALS.accessKeyId}`));
      const row = await t.container.database.db
        .selectFrom('storage_customer_targets')
        .selectAll()
        .where('tenant_id', '=', tenant.tenantId)
        .executeTakeFirstOrThrow();
      assert.ok(!row.secret_sealed.includes(CREDENTIALS.secretAccessKey), 'sealed at rest');
      assert.equal(row.key_id, 'db');
      assert.deepEqual(keysOf(tenant.tenantId), [], 'the probe left nothing behind');
    });

    it('rejects bad bodies, unsupported paths and conflicts', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      assertError(await migrate(t, tenant.tenantId, 'shared'), 409, 'conflict');
      assertError(await migrate(t, tenant.tenantId, 'tape'), 400, 'validation_error');
      assertError(await migrate(t, tenant.tenantId, 'dedicated', { extra: 1 }), 400, 'validation_error');
      const notSet = assertError(await migrate(t, tenant.tenantId, 'customer'), 400, 'validation_error');
      assert.equal(notSet.details.errors[0].field, 'target_provider');
      assertError(await migrate(t, '00000000-0000-7000-8000-000000000000', 'dedicated'), 404, 'not_found');
      assertError(
        await t.admin({
          method: 'GET',
          url: '/api/v1/admin/storage/migrations/00000000-0000-7000-8000-000000000000/failed',
        }),
        404,
        'not_found',
      );
      assertError(
        await t.admin({
          method: 'POST',
          url: '/api/v1/admin/storage/migrations/00000000-0000-7000-8000-000000000000/retry',
        }),
        404,
        'not_found',
      );
    });

    it('migrates a tenant with nothing to migrate', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      assert.equal(record.status, 'pending');
      assert.equal(record.total_files, 0);
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.progress_percent, 100);
      assert.equal(done.current_file, null);
      const config = await t.admin({ method: 'GET', url: `/api/v1/admin/storage/config/${tenant.tenantId}` });
      assert.equal(config.json().current_provider, 'dedicated');
    });

    it('moves every byte shared → customer → dedicated → shared, leaving another tenant untouched', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const files = Array.from({ length: 6 }, (_, i) => textFile(i, 1000 + i * 700));
      const ids: string[] = [];
      for (const [i, content] of files.entries())
        ids.push(await uploadOk(t, tenant.headers, { filename: `f${i}.txt`, content }));
      const otherId = await uploadOk(t, other.headers, { filename: 'other.txt', content: textFile(99) });
      assert.equal((await putCustomer(t, tenant.tenantId, customerS3)).statusCode, 200);

      const record = await migrateOk(t, tenant.tenantId, 'customer', { initiated_by_email: ADMIN_MAIL });
      assert.equal(record.status, 'pending');
      assert.equal(record.source_provider, 'shared');
      assert.equal(record.target_provider, 'customer');
      assert.equal(record.total_files, files.length);
      assert.equal(
        record.total_bytes,
        files.reduce((n, f) => n + f.length, 0),
      );
      assert.equal(record.initiated_by_email, ADMIN_MAIL);
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.migrated_files, files.length);
      assert.equal(done.migrated_bytes, record.total_bytes);
      assert.equal(done.progress_percent, 100);
      assert.ok(done.started_at && done.completed_at && done.source_purge_at);

      const inBucket = customerS3.keys('customer');
      for (const id of ids)
        assert.ok(
          inBucket.includes(`docuvault/tenants/${tenant.tenantId}/documents/${id}`),
          `${id} in the customer bucket`,
        );
      assert.ok(!inBucket.some((k) => k.includes(other.tenantId)), "the other tenant's files stay in shared storage");
      for (const [i, id] of ids.entries()) assert.equal(sha256(await download(t, tenant, id)), sha256(files[i]!));
      assert.equal(sha256(await download(t, other, otherId)), sha256(textFile(99)));
      assertError(
        await t.app.inject({ method: 'GET', url: `/api/v1/documents/${ids[0]}/download`, headers: other.headers }),
        404,
        'not_found',
      );

      const mail = await lastMailTo(t, { tenantId: tenant.tenantId } as never, ADMIN_MAIL);
      assert.ok(mail, 'the initiating administrator is told');
      assert.match(mail.subject, /completed/);
      const history = (
        await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${tenant.tenantId}/history` })
      ).json();
      assert.equal(history.count, 1);
      assert.equal(history.migrations[0].id, record.id);
      const audit = await t.container.database.db
        .selectFrom('storage_audit')
        .select('action')
        .where('migration_id', '=', record.id)
        .execute();
      assert.deepEqual(audit.map((a) => a.action).sort(), [
        'migration_completed',
        'migration_requested',
        'migration_started',
      ]);

      // New uploads now go to the customer's bucket.
      const later = await uploadOk(t, tenant.headers, { filename: 'later.txt', content: textFile(50) });
      assert.ok(customerS3.keys('customer').includes(`docuvault/tenants/${tenant.tenantId}/documents/${later}`));
      // customer → shared is not a listed path; customer → customer is where it already is; the bucket in use cannot change.
      assertError(await migrate(t, tenant.tenantId, 'shared'), 400, 'validation_error');
      assertError(await migrate(t, tenant.tenantId, 'customer'), 409, 'conflict');
      assertError(await putCustomer(t, tenant.tenantId, customerS3), 409, 'conflict');

      await migrateOk(t, tenant.tenantId, 'dedicated');
      assert.equal(
        (await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed'])).status,
        'completed',
      );
      const dedicatedKeys = dedicatedS3.keys('dedicated');
      for (const id of [...ids, later])
        assert.ok(dedicatedKeys.includes(`tenants/${tenant.tenantId}/tenants/${tenant.tenantId}/documents/${id}`));

      await migrateOk(t, tenant.tenantId, 'shared');
      const back = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed']);
      assert.equal(back.status, 'completed');
      assert.equal(back.total_files, ids.length + 1);
      for (const [i, id] of ids.entries()) assert.equal(sha256(await download(t, tenant, id)), sha256(files[i]!));
      assert.equal(
        (await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${tenant.tenantId}/history` })).json()
          .count,
        3,
      );
    });

    it('purges the source copies after the retention period', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const id = await uploadOk(t, tenant.headers, { filename: 'keep.txt', content: textFile(7) });
      const key = `tenants/${tenant.tenantId}/documents/${id}`;
      const shared = t.container.modules.use('storageProviders').shared;
      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      await waitForStatus(t, tenant.tenantId, ['completed']);
      assert.ok(await shared.head(key), 'the source copy is kept during the retention period');
      // A straggler: an upload that chose the source just before the switch and committed after the cutover check.
      const stragglerId = newId();
      const stragglerKey = `tenants/${tenant.tenantId}/documents/${stragglerId}`;
      const stored = await shared.put(stragglerKey, Readable.from([textFile(8)]));
      await t.container.database.db
        .insertInto('documents')
        .values(
          documentRow(tenant.tenantId, stragglerId, {
            file_size: stored.size,
            sha256: stored.sha256,
            storage_key: stragglerKey,
          }),
        )
        .execute();
      // Bring the purge forward instead of waiting the (test) retention out.
      await t.container.database.db
        .updateTable('jobs')
        .set({ run_at: Date.now() })
        .where('kind', '=', 'storage.purge_source')
        .where('state', '=', 'available')
        .execute();
      const deadline = Date.now() + 10_000;
      while ((await statusView(t, tenant.tenantId)).source_purged_at === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      assert.equal(await shared.head(key), null, 'the source copy is gone');
      assert.equal(await shared.head(stragglerKey), null);
      assert.equal(
        sha256(await download(t, tenant, stragglerId)),
        sha256(textFile(8)),
        'the straggler was copied before the purge',
      );
      const purged = await t.container.database.db
        .selectFrom('storage_audit')
        .select('detail')
        .where('migration_id', '=', record.id)
        .where('action', '=', 'source_purged')
        .executeTakeFirstOrThrow();
      assert.equal(JSON.parse(purged.detail).stragglers_copied, 1);
      assert.equal(sha256(await download(t, tenant, id)), sha256(textFile(7)));
      const config = (await t.admin({ method: 'GET', url: `/api/v1/admin/storage/config/${tenant.tenantId}` })).json();
      assert.deepEqual(config.read_providers, ['dedicated']);
      assert.equal(record.status, 'pending');
    });
  },
  { worker: true, env: storageEnv(dedicatedS3, { STORAGE_NOTIFY_EMAIL: 'fallback-ops@example.com' }) },
);

describeEachDialect('storage configuration without private network targets', (ctx) => {
  it('refuses a customer endpoint on a private address (the guarded outbound client)', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const body = assertError(await putCustomer(t, tenant.tenantId, customerS3), 400, 'validation_error');
    assert.equal(body.details.errors[0].field, 'endpoint');
    assert.deepEqual(keysOf(tenant.tenantId), []);
    const view = await t.admin({ method: 'GET', url: `/api/v1/admin/storage/config/${tenant.tenantId}` });
    assert.deepEqual(view.json().targets.customer, { configured: false });
  });
});
