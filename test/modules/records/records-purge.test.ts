import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { migrateOk, s3WithBuckets, statusView, storageEnv, textFile, waitForStatus } from '../storage/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';

const dedicatedS3 = await s3WithBuckets('dedicated');
after(() => dedicatedS3.close());

/** A legal hold blocks the purge of a storage migration's source copies (docs/records.md): held documents keep theirs, the others go. */
describeEachDialect(
  'records: a legal hold against the storage purge',
  (ctx) => {
    it('keeps the source copies of held documents (a folder hold included) and purges the rest', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const folder = (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/folders',
          headers: tenant.headers,
          payload: { name: 'Held' },
        })
      ).json().id as string;
      const held = await uploadOk(t, tenant.headers, { filename: 'held.txt', content: textFile(1) });
      const inFolder = await uploadOk(t, tenant.headers, {
        filename: 'in-folder.txt',
        content: textFile(2),
        fields: { folder_id: folder },
      });
      const free = await uploadOk(t, tenant.headers, { filename: 'free.txt', content: textFile(3) });
      const hold = await t.app.inject({
        method: 'POST',
        url: '/api/v1/legal-holds',
        headers: tenant.headers,
        payload: { name: 'Purge hold', document_ids: [held], folder_ids: [folder] },
      });
      assert.equal(hold.statusCode, 201, hold.body);
      const key = (id: string) => `tenants/${tenant.tenantId}/documents/${id}`;
      const shared = t.container.modules.use('storageProviders').shared;
      const record = await migrateOk(t, tenant.tenantId, 'dedicated');
      await waitForStatus(t, tenant.tenantId, ['completed']);
      await t.container.database.db
        .updateTable('jobs')
        .set({ run_at: Date.now() })
        .where('kind', '=', 'storage.purge_source')
        .where('state', '=', 'available')
        .execute();
      const deadline = Date.now() + 20_000;
      while ((await statusView(t, tenant.tenantId)).source_purged_at === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      assert.equal(await shared.head(key(free)), null, 'an unheld source copy is purged');
      assert.ok(await shared.head(key(held)), 'a held document keeps its source copy');
      assert.ok(await shared.head(key(inFolder)), 'so does a document in a held folder');
      const purged = await t.container.database.db
        .selectFrom('storage_audit')
        .select('detail')
        .where('migration_id', '=', record.id)
        .where('action', '=', 'source_purged')
        .executeTakeFirstOrThrow();
      assert.equal(JSON.parse(purged.detail).kept_under_legal_hold, 2);
    });
  },
  { worker: true, env: storageEnv(dedicatedS3) },
);
