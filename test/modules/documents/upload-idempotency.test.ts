import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant } from '../../support/fixtures.ts';
import { documentCount, multipart } from './helpers.ts';

describeEachDialect('uploads with Idempotency-Key', (ctx) => {
  it('replays a repeated upload (same fields and file) and refuses the key with another file', async () => {
    const tenant = await createTenant(ctx(), { tier: 'enterprise' });
    const send = (content: string, key: string, url = '/api/v1/documents/upload', field = 'file') => {
      const body = multipart([
        { name: 'tags', value: 'x' },
        { name: field, filename: 'same.txt', content: Buffer.from(content) },
      ]);
      return ctx().app.inject({
        method: 'POST',
        url,
        payload: body.payload,
        headers: { ...tenant.headers, ...body.headers, 'idempotency-key': key },
      });
    };
    const first = await send('one', 'k-1');
    assert.equal(first.statusCode, 201, first.body);
    const again = await send('one', 'k-1');
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.json().id, first.json().id);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await documentCount(ctx(), tenant.tenantId), 1);
    assertError(await send('two', 'k-1'), 422, 'idempotency_key_reused');

    const batch = await send('b', 'k-2', '/api/v1/documents/upload-batch', 'files[]');
    assert.equal(batch.statusCode, 201, batch.body);
    const batchAgain = await send('b', 'k-2', '/api/v1/documents/upload-batch', 'files[]');
    assert.equal(batchAgain.json().batch_job_id, batch.json().batch_job_id);
    assert.equal(await documentCount(ctx(), tenant.tenantId), 2);
  });
});
