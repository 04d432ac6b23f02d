import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import { documentCount, localBlobFiles, multipart, upload, uploadOk } from './helpers.ts';

async function eventCount(t: TestApp, tenantId: string, name: string): Promise<number> {
  const rows = await t.container.database.db
    .selectFrom('events')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .execute();
  return rows.length;
}

function batch(
  t: TestApp,
  headers: Record<string, string>,
  files: { filename: string; content: Buffer }[],
  fields: Record<string, string> = {},
  query = '',
) {
  const body = multipart([
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    ...files.map((f) => ({ name: 'files[]', ...f })),
  ]);
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/documents/upload-batch${query}`,
    payload: body.payload,
    headers: { ...headers, ...body.headers },
  });
}

describeEachDialect('identical uploads: duplicate_of and on_duplicate=skip', (ctx) => {
  const CONTENT = Buffer.from('The same minutes of the board meeting, uploaded twice.\n');

  it('by default an identical upload is stored again (201) and names the first in duplicate_of', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const first = await upload(t, tenant.headers, { filename: 'minutes.txt', content: CONTENT });
    assert.equal(first.statusCode, 201);
    assert.equal(first.json().duplicate_of, undefined, 'nothing to duplicate yet');
    const second = await upload(t, tenant.headers, { filename: 'minutes-copy.txt', content: CONTENT });
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.json().duplicate_of, first.json().id);
    assert.notEqual(second.json().id, first.json().id);
    assert.equal(await documentCount(t, tenant.tenantId), 2);
    assert.equal(await eventCount(t, tenant.tenantId, 'document.uploaded'), 2);
  });

  it('on_duplicate=skip (form field or query parameter) answers the existing document with 200 and stores and emits nothing', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const id = await uploadOk(t, tenant.headers, { filename: 'minutes.txt', content: CONTENT });
    const blobs = localBlobFiles(t).blobs.length;
    for (const how of [{ fields: { on_duplicate: 'skip' } }, { url: '/api/v1/documents/upload?on_duplicate=skip' }]) {
      const res = await upload(t, tenant.headers, { filename: 'again.txt', content: CONTENT, ...how });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().id, id);
      assert.equal(res.json().duplicate_of, id);
      assert.equal(res.json().filename, 'minutes.txt');
    }
    assert.equal(await documentCount(t, tenant.tenantId), 1);
    assert.equal(await eventCount(t, tenant.tenantId, 'document.uploaded'), 1);
    assert.equal(localBlobFiles(t).blobs.length, blobs, 'the skipped bytes were removed');
    // New content is stored as usual under skip.
    const fresh = await upload(t, tenant.headers, {
      filename: 'new.txt',
      content: Buffer.from('other'),
      fields: { on_duplicate: 'skip' },
    });
    assert.equal(fresh.statusCode, 201);
    assert.equal(fresh.json().duplicate_of, undefined);
    // The field wins over the query parameter; a bad value is 400.
    const stored = await upload(t, tenant.headers, {
      filename: 'x.txt',
      content: CONTENT,
      fields: { on_duplicate: 'store' },
      url: '/api/v1/documents/upload?on_duplicate=skip',
    });
    assert.equal(stored.statusCode, 201);
    assertError(
      await upload(t, tenant.headers, { content: CONTENT, fields: { on_duplicate: 'maybe' } }),
      400,
      'validation_error',
    );
    assertError(
      await upload(t, tenant.headers, { content: CONTENT, url: '/api/v1/documents/upload?on_duplicate=maybe' }),
      400,
      'validation_error',
    );
  });

  it('only documents the caller can see count: a member is not told of another member’s private document', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const alice = await loginAs(t, tenant, 'member', { email: `alice-${tenant.subdomain}@example.com` });
    const bob = await loginAs(t, tenant, 'member', { email: `bob-${tenant.subdomain}@example.com` });
    const hers = await uploadOk(t, alice.headers, { filename: 'private.txt', content: CONTENT });
    const his = await upload(t, bob.headers, {
      filename: 'mine.txt',
      content: CONTENT,
      fields: { on_duplicate: 'skip' },
    });
    assert.equal(his.statusCode, 201, 'stored: bob cannot see alice’s copy');
    assert.equal(his.json().duplicate_of, undefined);
    // The tenant's API key sees both: the oldest is named.
    const key = await upload(t, tenant.headers, { filename: 'k.txt', content: CONTENT });
    assert.equal(key.json().duplicate_of, hers);
    // Another tenant never learns of either.
    const other = await createTenant(t, { tier: 'enterprise' });
    const theirs = await upload(t, other.headers, {
      filename: 'theirs.txt',
      content: CONTENT,
      fields: { on_duplicate: 'skip' },
    });
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.json().duplicate_of, undefined);
  });

  it('batches: duplicate_of per document, skipped files listed, 200 when every file was skipped', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const id = await uploadOk(t, tenant.headers, { filename: 'minutes.txt', content: CONTENT });
    const other = Buffer.from('A different file.');
    const stored = await batch(t, tenant.headers, [
      { filename: 'a.txt', content: CONTENT },
      { filename: 'b.txt', content: other },
      { filename: 'c.txt', content: other },
    ]);
    assert.equal(stored.statusCode, 201, stored.body);
    const docs = stored.json().documents;
    assert.equal(docs.length, 3);
    assert.equal(docs[0].duplicate_of, id);
    assert.equal(docs[1].duplicate_of, undefined);
    assert.equal(docs[2].duplicate_of, docs[1].id, 'an earlier file of the same batch');
    assert.equal(stored.json().skipped, undefined);

    const before = await documentCount(t, tenant.tenantId);
    const events = await eventCount(t, tenant.tenantId, 'document.uploaded');
    const mixed = await batch(
      t,
      tenant.headers,
      [
        { filename: 'a.txt', content: CONTENT },
        { filename: 'new.txt', content: Buffer.from('Brand new.') },
      ],
      { on_duplicate: 'skip' },
    );
    assert.equal(mixed.statusCode, 201, mixed.body);
    assert.equal(mixed.json().documents.length, 1);
    assert.deepEqual(mixed.json().skipped, [{ filename: 'a.txt', duplicate_of: id }]);
    const skippedAll = await batch(
      t,
      tenant.headers,
      [{ filename: 'a.txt', content: CONTENT }],
      {},
      '?on_duplicate=skip',
    );
    assert.equal(skippedAll.statusCode, 200, skippedAll.body);
    assert.deepEqual(skippedAll.json().documents, []);
    assert.deepEqual(skippedAll.json().skipped, [{ filename: 'a.txt', duplicate_of: id }]);
    assert.equal(await documentCount(t, tenant.tenantId), before + 1);
    assert.equal(await eventCount(t, tenant.tenantId, 'document.uploaded'), events + 1);
  });
});
