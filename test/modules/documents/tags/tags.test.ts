import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../../support/fixtures.ts';
import { uploadOk } from '../helpers.ts';

describeEachDialect('tags', (ctx) => {
  let tenant: TestTenant;
  const req = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers = tenant.headers) =>
    ctx().app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });

  it('creates tags with a default colour and refuses duplicates case-insensitively', async () => {
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
    const res = await req('POST', '/tags', { name: 'Invoices' });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['color', 'created_at', 'id', 'name']);
    assert.equal(res.json().color, '#6B7280');
    const coloured = await req('POST', '/tags', { name: 'Urgent', color: '#FF0000' });
    assert.equal(coloured.json().color, '#FF0000');
    assertError(await req('POST', '/tags', { name: 'invoices' }), 409, 'conflict');
    assertError(await req('POST', '/tags', { name: '' }), 400, 'validation_error');
    assertError(await req('POST', '/tags', { name: 'x', color: 'blue' }), 400, 'validation_error');
  });

  it('lists tags in the paged envelope, by name', async () => {
    await req('POST', '/tags', { name: 'archive' });
    const all = (await req('GET', '/tags')).json();
    assert.equal(all.total, 3);
    assert.equal(all.page, 1);
    assert.equal(all.page_size, 20);
    assert.deepEqual(
      all.data.map((t: { name: string }) => t.name),
      ['archive', 'Invoices', 'Urgent'],
    );
    const page2 = (await req('GET', '/tags?page=2&page_size=2')).json();
    assert.deepEqual(
      page2.data.map((t: { name: string }) => t.name),
      ['Urgent'],
    );
  });

  it('deletes a tag and its links to documents; only owners and admins may', async () => {
    const id = await uploadOk(ctx(), tenant.headers, { fields: { tags: 'Urgent' } });
    const urgent = (await req('GET', '/tags')).json().data.find((t: { name: string }) => t.name === 'Urgent');
    const member = await loginAs(ctx(), tenant, 'member');
    assertError(await req('DELETE', `/tags/${urgent.id}`, undefined, member.headers), 403, 'forbidden');
    const res = await req('DELETE', `/tags/${urgent.id}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual((await req('GET', `/documents/${id}`)).json().tags, []);
    assertError(await req('DELETE', `/tags/${urgent.id}`), 404, 'not_found');
  });
});
