import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { documentRow } from '../../support/document-rows.ts';
import { assertError, createTenant } from '../../support/fixtures.ts';
import { GB } from '../../../src/domain/tiers.ts';
import { documentCount, localBlobFiles, upload } from './helpers.ts';

/** Pretends the tenant already stores `bytes` in `count` documents (rows only). */
async function fill(t: TestApp, tenantId: string, bytes: number, count = 1) {
  const rows = Array.from({ length: count }, (_, i) =>
    documentRow(tenantId, `fill-${tenantId}-${i}`, { file_size: i === 0 ? bytes : 0 }),
  );
  await t.container.database.db.insertInto('documents').values(rows).execute();
}

describeEachDialect('upload quotas', (ctx) => {
  it('refuses an upload past the tier storage quota with 403 tier_limit_exceeded before storing', async () => {
    const tenant = await createTenant(ctx(), { tier: 'free' });
    await fill(ctx(), tenant.tenantId, GB - 100);
    const blobsBefore = localBlobFiles(ctx()).blobs.length;
    const res = await upload(ctx(), tenant.headers, { filename: 'big.txt', content: Buffer.alloc(200 * 1024, 0x61) });
    const body = assertError(res, 403, 'tier_limit_exceeded');
    assert.equal(body.details.current_tier, 'free');
    assert.equal(body.details.limit, GB);
    assert.equal(await documentCount(ctx(), tenant.tenantId), 1);
    assert.equal(localBlobFiles(ctx()).blobs.length, blobsBefore);
    assert.deepEqual(localBlobFiles(ctx()).temp, []);
  });

  it('enforces the quota while streaming when the declared size does not show it (403, not 413)', async () => {
    const tenant = await createTenant(ctx(), { tier: 'free' });
    // Room for 5,000 bytes: a 20 KB body passes the declared-size check (multipart overhead allowance) but not the stream.
    await fill(ctx(), tenant.tenantId, GB - 5_000);
    const blobsBefore = localBlobFiles(ctx()).blobs.length;
    const res = await upload(ctx(), tenant.headers, { filename: 'mid.txt', content: Buffer.alloc(20_000, 0x61) });
    assertError(res, 403, 'tier_limit_exceeded');
    assert.equal(localBlobFiles(ctx()).blobs.length, blobsBefore);
    assert.deepEqual(localBlobFiles(ctx()).temp, []);
    const small = await upload(ctx(), tenant.headers, { filename: 'small.txt', content: Buffer.alloc(4_000, 0x61) });
    assert.equal(small.statusCode, 201, small.body);
    // Full now: a 2,000-byte file no longer fits.
    assertError(
      await upload(ctx(), tenant.headers, { filename: 'more.txt', content: Buffer.alloc(2_000, 0x61) }),
      403,
      'tier_limit_exceeded',
    );
  });

  it('limits the sandbox to 100 documents', async () => {
    const tenant = await createTenant(ctx(), { tier: 'pro' });
    const twin = await ctx()
      .container.database.db.selectFrom('tenants')
      .select('id')
      .where('sandbox_of', '=', tenant.tenantId)
      .executeTakeFirstOrThrow();
    await fill(ctx(), twin.id, 10, 99);
    const sandbox = { 'x-api-key': tenant.testApiKey };
    const ok = await upload(ctx(), sandbox, { url: '/sandbox/api/v1/documents/upload' });
    assert.equal(ok.statusCode, 201, ok.body);
    const res = await upload(ctx(), sandbox, { url: '/sandbox/api/v1/documents/upload' });
    const body = assertError(res, 403, 'tier_limit_exceeded');
    assert.equal(body.details.limit, 100);
    assert.equal(await documentCount(ctx(), twin.id), 100);
    // The live tenant is not affected.
    assert.equal((await upload(ctx(), tenant.headers)).statusCode, 201);
  });

  it('reports documents and stored bytes in the admin tenant usage', async () => {
    const tenant = await createTenant(ctx(), { tier: 'team' });
    await upload(ctx(), tenant.headers, { filename: 'a.txt', content: Buffer.from('12345') });
    await upload(ctx(), tenant.headers, { filename: 'b.txt', content: Buffer.from('123') });
    const res = await ctx().admin({ method: 'GET', url: `/api/v1/admin/tenants/${tenant.tenantId}` });
    assert.equal(res.json().usage.documents, 2);
    assert.equal(res.json().usage.storage_bytes, 8);
  });
});
