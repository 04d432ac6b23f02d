import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { describeEachBlobStore } from './blob-stores.ts';
import { uploadOk } from './helpers.ts';

describeEachBlobStore('document download', (ctx) => {
  let tenant: TestTenant;
  let id: string;
  // Above one S3 part, so multipart storage and ranged reads across parts are both exercised.
  const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(9 * 1024 * 1024), Buffer.from('\n%%EOF\n')]);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const t = () => ctx().t;
  const get = (headers: Record<string, string> = {}) =>
    t().app.inject({ url: `/api/v1/documents/${id}/download`, headers: { ...tenant.headers, ...headers } });

  it('answers the exact original bytes with type, disposition, ETag and nosniff', async () => {
    tenant = await createTenant(t(), { tier: 'enterprise' });
    id = await uploadOk(t(), tenant.headers, { filename: 'Rapport été.pdf', content: bytes });
    const doc = await t().app.inject({ url: `/api/v1/documents/${id}`, headers: tenant.headers });
    assert.equal(doc.json().filename, 'Rapport été.pdf');
    const renamed = await t().app.inject({
      method: 'PUT',
      url: `/api/v1/documents/${id}`,
      headers: tenant.headers,
      payload: { filename: 'Rapport été "final".pdf' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const res = await get();
    assert.equal(res.statusCode, 200);
    assert.ok(res.rawPayload.equals(bytes));
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(res.headers['content-length'], String(bytes.length));
    assert.equal(res.headers.etag, `"${sha}"`);
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename="Rapport _t_ _final_.pdf"; filename*=UTF-8''Rapport%20%C3%A9t%C3%A9%20%22final%22.pdf`,
    );
  });

  it('serves single ranges with 206 and the right bytes', async () => {
    const size = bytes.length;
    for (const [header, start, end] of [
      ['bytes=0-9', 0, 9],
      ['bytes=8388600-8388700', 8388600, 8388700],
      [`bytes=${size - 5}-`, size - 5, size - 1],
      ['bytes=-7', size - 7, size - 1],
      [`bytes=100-${size + 1000}`, 100, size - 1],
    ] as const) {
      const res = await get({ range: header });
      assert.equal(res.statusCode, 206, header);
      assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size}`);
      assert.equal(res.headers['content-length'], String(end - start + 1));
      assert.ok(res.rawPayload.equals(bytes.subarray(start, end + 1)), header);
    }
  });

  it('answers 416 with bytes */size for an unsatisfiable range, and the whole file for several ranges', async () => {
    const res = await get({ range: `bytes=${bytes.length}-` });
    assert.equal(res.statusCode, 416);
    assert.equal(res.headers['content-range'], `bytes */${bytes.length}`);
    const multi = await get({ range: 'bytes=0-1,5-6' });
    assert.equal(multi.statusCode, 200);
    assert.ok(multi.rawPayload.equals(bytes));
    const junk = await get({ range: 'lines=1-2' });
    assert.equal(junk.statusCode, 200);
  });

  it('answers 304 to a matching If-None-Match and ignores a Range whose If-Range is stale', async () => {
    const res = await get({ 'if-none-match': `"other", "${sha}"` });
    assert.equal(res.statusCode, 304);
    assert.equal(res.rawPayload.length, 0);
    assert.equal((await get({ 'if-none-match': '"other"' })).statusCode, 200);
    const stale = await get({ range: 'bytes=0-1', 'if-range': '"stale"' });
    assert.equal(stale.statusCode, 200);
    const fresh = await get({ range: 'bytes=0-1', 'if-range': `"${sha}"` });
    assert.equal(fresh.statusCode, 206);
  });

  it('is 404 for an unknown document', async () => {
    assertError(
      await t().app.inject({ url: '/api/v1/documents/nope/download', headers: tenant.headers }),
      404,
      'not_found',
    );
  });
});
