import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, loginAs } from '../../support/fixtures.ts';
import { multipart } from './helpers.ts';

describeEachDialect('batch job list', (ctx) => {
  const batch = async (headers: Record<string, string>, names: string[]) => {
    const body = multipart(
      names.map((n) => ({ name: 'files[]', filename: n, content: Buffer.from(`content of ${n}`) })),
    );
    const res = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload-batch',
      payload: body.payload,
      headers: { ...headers, ...body.headers },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().batch_job_id as string;
  };

  it('lists batches newest first in the paged envelope; members see their own; other tenants see none', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const member = await loginAs(t, tenant, 'member');
    const first = await batch(tenant.headers, ['a.txt', 'b.txt']);
    const second = await batch(tenant.headers, ['c.txt']);
    const mine = await batch(member.headers, ['m.txt']);

    const all = await t.app.inject({ url: '/api/v1/batch-jobs?page_size=2', headers: tenant.headers });
    assert.equal(all.statusCode, 200, all.body);
    const body = all.json();
    assert.deepEqual(Object.keys(body).sort(), ['data', 'page', 'page_size', 'total']);
    assert.equal(body.total, 3);
    assert.equal(body.page_size, 2);
    assert.deepEqual(
      body.data.map((j: { id: string }) => j.id),
      [mine, second],
    );
    assert.equal(body.data[1].total, 1);
    assert.equal(body.data[1].documents[0].filename, 'c.txt');
    const page2 = await t.app.inject({ url: '/api/v1/batch-jobs?page=2&page_size=2', headers: tenant.headers });
    assert.deepEqual(
      page2.json().data.map((j: { id: string }) => j.id),
      [first],
    );

    const own = await t.app.inject({ url: '/api/v1/batch-jobs', headers: member.headers });
    assert.deepEqual(
      own.json().data.map((j: { id: string }) => j.id),
      [mine],
    );
    assert.equal(own.json().total, 1);

    const other = await createTenant(t, { tier: 'enterprise' });
    const theirs = await t.app.inject({ url: '/api/v1/batch-jobs', headers: other.headers });
    assert.deepEqual(theirs.json(), { data: [], total: 0, page: 1, page_size: 20 });
  });
});
