import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { multipart, uploadOk } from '../documents/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { migrateOk, s3WithBuckets, sha256, storageEnv, textFile, waitForStatus } from './helpers.ts';

const dedicatedS3 = await s3WithBuckets('dedicated');
after(async () => {
  await dedicatedS3.close();
});

describeEachDialect(
  'storage migration of document versions',
  (ctx) => {
    it('moves every version of a document, not only the current one', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const files = [textFile(1, 1500), textFile(2, 2500), textFile(3, 3500)];
      const id = await uploadOk(t, tenant.headers, { filename: 'v.txt', content: files[0] });
      for (const content of files.slice(1)) {
        const body = multipart([{ name: 'file', filename: 'v.txt', content }]);
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/v1/documents/${id}/versions`,
          payload: body.payload,
          headers: { ...tenant.headers, ...body.headers },
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      // Version 1 current again: the versions to move are 2 and 3, under their own ids.
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: `/api/v1/documents/${id}/versions/1/restore`,
            headers: tenant.headers,
          })
        ).statusCode,
        200,
      );
      const keys = (
        await t.container.database.db
          .selectFrom('document_versions')
          .select(['storage_key', 'number'])
          .where('document_id', '=', id)
          .orderBy('number')
          .execute()
      ).map((r) => r.storage_key);
      assert.equal(keys.length, 3);

      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      assert.equal(
        record.total_bytes,
        files.reduce((n, f) => n + f.length, 0),
        'every version counts in the bytes to move',
      );
      const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed'], 90_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.total_files, 3, 'the inventory: the document and its two other versions');
      assert.equal(done.migrated_files, 3);
      assert.equal(
        done.migrated_bytes,
        files.reduce((n, f) => n + f.length, 0),
      );
      const inBucket = dedicatedS3.keys('dedicated');
      for (const key of keys) assert.ok(inBucket.includes(`tenants/${tenant.tenantId}/${key}`), `${key} moved`);
      for (const [i, content] of files.entries()) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/v1/documents/${id}/versions/${i + 1}/download`,
          headers: tenant.headers,
        });
        assert.equal(res.statusCode, 200);
        assert.equal(sha256(res.rawPayload), sha256(content), `version ${i + 1} reads from the new store`);
      }
    });
  },
  { worker: true, env: storageEnv(dedicatedS3) },
);
