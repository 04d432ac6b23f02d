import assert from 'node:assert/strict';
import { it } from 'node:test';
import { representationTag } from '../../src/http/conditional-requests.ts';
import { uploadOk } from '../modules/documents/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../support/fixtures.ts';

describeEachDialect('Conditional requests on JSON resources (ETag, If-None-Match, If-Match)', (ctx) => {
  let tenant: TestTenant;
  const call = (method: 'GET' | 'PUT', url: string, headers: Record<string, string> = {}, payload?: object) =>
    ctx().app.inject({ method, url, headers: { ...tenant.headers, ...headers }, ...(payload ? { payload } : {}) });

  it('tags a single resource, answers 304 to a current If-None-Match, and 200 once it changed', async () => {
    tenant = await createTenant(ctx());
    const id = await uploadOk(ctx(), tenant.headers, { filename: 'etag.txt' });
    const first = await call('GET', `/api/v1/documents/${id}`);
    assert.equal(first.statusCode, 200);
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[\w-]{32}"$/);
    assert.equal(etag, representationTag(first.json()), 'the tag is the hash of the representation');
    assert.equal(first.headers['last-modified'], new Date(first.json().updated_at).toUTCString());

    const again = await call('GET', `/api/v1/documents/${id}`, { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) {
      assert.equal((await call('GET', `/api/v1/documents/${id}`, { 'if-none-match': header })).statusCode, 304, header);
    }
    assert.equal((await call('GET', `/api/v1/documents/${id}`, { 'if-none-match': '"stale"' })).statusCode, 200);

    assert.equal((await call('PUT', `/api/v1/documents/${id}`, {}, { filename: 'renamed.txt' })).statusCode, 200);
    const changed = await call('GET', `/api/v1/documents/${id}`, { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.json().filename, 'renamed.txt');
    assert.notEqual(changed.headers.etag, etag);
  });

  it('tags other single resources the same way, and not the lists', async () => {
    const created = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: tenant.headers,
      payload: { name: 'Tagged' },
    });
    const got = await call('GET', `/api/v1/folders/${created.json().id}`);
    assert.ok(got.headers.etag);
    assert.equal(
      (await call('GET', `/api/v1/folders/${created.json().id}`, { 'if-none-match': String(got.headers.etag) }))
        .statusCode,
      304,
    );
    const user = await call('GET', `/api/v1/users/${tenant.ownerId}`);
    assert.equal(
      (await call('GET', `/api/v1/users/${tenant.ownerId}`, { 'if-none-match': String(user.headers.etag) })).statusCode,
      304,
    );
    // A folder's representation includes its document count: an upload into it changes the tag.
    await uploadOk(ctx(), tenant.headers, { filename: 'inside.txt', fields: { folder_id: created.json().id } });
    assert.equal(
      (await call('GET', `/api/v1/folders/${created.json().id}`, { 'if-none-match': String(got.headers.etag) }))
        .statusCode,
      200,
    );
    assert.equal((await call('GET', '/api/v1/folders')).headers.etag, undefined);
  });

  it('updates documents under If-Match: the current tag passes and answers the new one, a stale tag is 412 and changes nothing', async () => {
    const id = await uploadOk(ctx(), tenant.headers, { filename: 'occ.txt' });
    const etag = String((await call('GET', `/api/v1/documents/${id}`)).headers.etag);
    const ok = await call('PUT', `/api/v1/documents/${id}`, { 'if-match': etag }, { filename: 'first.txt' });
    assert.equal(ok.statusCode, 200, ok.body);
    const after = await call('GET', `/api/v1/documents/${id}`);
    assert.equal(ok.headers.etag, after.headers.etag, 'the update answers the tag GET now gives');

    const stale = await call('PUT', `/api/v1/documents/${id}`, { 'if-match': etag }, { filename: 'second.txt' });
    assertError(stale, 412, 'precondition_failed');
    assert.equal(stale.json().code, 'PRECONDITION_FAILED');
    assert.equal(stale.json().details.etag, after.headers.etag);
    assert.equal((await call('GET', `/api/v1/documents/${id}`)).json().filename, 'first.txt');
    assert.equal(
      (await call('PUT', `/api/v1/documents/${id}`, { 'if-match': '*' }, { filename: 'third.txt' })).statusCode,
      200,
    );
    // Without If-Match an update is unconditional, as before.
    assert.equal((await call('PUT', `/api/v1/documents/${id}`, {}, { filename: 'fourth.txt' })).statusCode, 200);
    assertError(
      await call(
        'PUT',
        '/api/v1/documents/0190f0f0-0000-7000-8000-000000000000',
        { 'if-match': etag },
        { filename: 'x.txt' },
      ),
      404,
      'not_found',
    );
  });

  it('lets exactly one of two updates carrying the same If-Match through', async () => {
    const id = await uploadOk(ctx(), tenant.headers, { filename: 'race.txt' });
    const etag = String((await call('GET', `/api/v1/documents/${id}`)).headers.etag);
    const answers = await Promise.all(
      ['a.txt', 'b.txt'].map((filename) => call('PUT', `/api/v1/documents/${id}`, { 'if-match': etag }, { filename })),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 412]);
  });

  it('updates folders under If-Match', async () => {
    const folder = (
      await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: tenant.headers,
        payload: { name: 'Occ' },
      })
    ).json();
    const etag = String((await call('GET', `/api/v1/folders/${folder.id}`)).headers.etag);
    const ok = await call('PUT', `/api/v1/folders/${folder.id}`, { 'if-match': etag }, { color: '#112233' });
    assert.equal(ok.statusCode, 200, ok.body);
    assertError(
      await call('PUT', `/api/v1/folders/${folder.id}`, { 'if-match': etag }, { name: 'Lost update' }),
      412,
      'precondition_failed',
    );
    assert.equal((await call('GET', `/api/v1/folders/${folder.id}`)).json().name, 'Occ');
  });

  it('updates workflows under If-Match, also for a user token', async () => {
    const owner = await loginAs(ctx(), tenant, 'owner');
    const created = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/dag/workflows',
      headers: owner.headers,
      payload: {
        name: 'Occ flow',
        trigger: { type: 'manual' },
        nodes: [{ id: 'done', type: 'end', config: { status: 'completed' } }],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const url = `/api/v1/dag/workflows/${created.json().id}`;
    const got = await ctx().app.inject({ method: 'GET', url, headers: owner.headers });
    const etag = String(got.headers.etag);
    assert.equal(
      (await ctx().app.inject({ method: 'GET', url, headers: { ...owner.headers, 'if-none-match': etag } })).statusCode,
      304,
    );
    const ok = await ctx().app.inject({
      method: 'PUT',
      url,
      headers: { ...owner.headers, 'if-match': etag },
      payload: { description: 'first' },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const stale = await ctx().app.inject({
      method: 'PUT',
      url,
      headers: { ...owner.headers, 'if-match': etag },
      payload: { description: 'second' },
    });
    assertError(stale, 412, 'precondition_failed');
    assert.equal((await ctx().app.inject({ method: 'GET', url, headers: owner.headers })).json().description, 'first');
  });
});
