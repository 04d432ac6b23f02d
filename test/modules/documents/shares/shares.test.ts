import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, type TestApp } from '../../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../../support/fixtures.ts';
import { multipart, uploadOk } from '../helpers.ts';

type Headers = Record<string, string>;

async function call(
  t: TestApp,
  headers: Headers,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
) {
  return t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });
}

describeEachDialect('shares and document permissions', (ctx) => {
  let tenant: TestTenant;
  let member: LoggedInUser;
  let member2: LoggedInUser;
  let viewer: LoggedInUser;
  let admin: LoggedInUser;
  let doc: string;
  const as = (u: { headers: Headers }) => ({
    get: (url: string) => call(ctx(), u.headers, 'GET', url),
    post: (url: string, body?: object) => call(ctx(), u.headers, 'POST', url, body ?? {}),
    put: (url: string, body: object) => call(ctx(), u.headers, 'PUT', url, body),
    del: (url: string) => call(ctx(), u.headers, 'DELETE', url),
  });
  const share = (permission: string, target: object, by: { headers: Headers } = tenant) =>
    as(by).post(`/documents/${doc}/share`, { ...target, permission });

  it('hides a document from members and viewers it is not shared with (404, never 403)', async () => {
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
    member = await loginAs(ctx(), tenant, 'member');
    member2 = await loginAs(ctx(), tenant, 'member', { email: 'member2@example.com' });
    viewer = await loginAs(ctx(), tenant, 'viewer');
    admin = await loginAs(ctx(), tenant, 'admin');
    doc = await uploadOk(ctx(), tenant.headers, { filename: 'secret.txt', content: Buffer.from('secret') });
    for (const u of [member, viewer]) {
      assertError(await as(u).get(`/documents/${doc}`), 404, 'not_found');
      assertError(await as(u).get(`/documents/${doc}/download`), 404, 'not_found');
      assertError(await as(u).put(`/documents/${doc}`, { filename: 'x.txt' }), 404, 'not_found');
      assertError(await as(u).del(`/documents/${doc}`), 404, 'not_found');
      assertError(await as(u).get(`/documents/${doc}/shares`), 404, 'not_found');
      assert.equal((await as(u).get('/documents')).json().total, 0);
    }
    // Owners and admins see everything.
    assert.equal((await as(admin).get(`/documents/${doc}`)).statusCode, 200);
    assert.equal((await as(await loginAs(ctx(), tenant, 'owner')).get(`/documents/${doc}`)).statusCode, 200);
  });

  it('view lets a member read, download and see content, but not change (403)', async () => {
    const res = await share('view', { user_id: member.userId });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.document_id, doc);
    assert.equal(body.user_id, member.userId);
    assert.equal(body.permission, 'view');
    assert.ok(body.share_id);
    const m = as(member);
    assert.equal((await m.get(`/documents/${doc}`)).statusCode, 200);
    assert.equal((await m.get(`/documents/${doc}/download`)).body, 'secret');
    assert.equal((await m.get(`/documents/${doc}/content`)).json().content, 'secret');
    assert.deepEqual(
      (await m.get('/documents')).json().data.map((d: { id: string }) => d.id),
      [doc],
    );
    // A user-token list does not carry entities (the key-authenticated variant does).
    assert.equal((await m.get('/documents')).json().data[0].entities, undefined);
    assertError(await m.put(`/documents/${doc}`, { filename: 'x.txt' }), 403, 'forbidden');
    assertError(await m.del(`/documents/${doc}`), 403, 'forbidden');
    assertError(
      await m.post(`/documents/${doc}/share`, { user_id: viewer.userId, permission: 'view' }),
      403,
      'forbidden',
    );
    assertError(await m.get(`/documents/${doc}/shares`), 403, 'forbidden');
  });

  it('edit adds update, move and tag; admin adds share, list shares and delete', async () => {
    const again = await share('edit', { user_id: member.userId });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().permission, 'edit');
    const m = as(member);
    const put = await m.put(`/documents/${doc}`, { filename: 'renamed.txt', tags: ['shared'] });
    assert.equal(put.statusCode, 200, put.body);
    assertError(await m.del(`/documents/${doc}`), 403, 'forbidden');
    assertError(await m.get(`/documents/${doc}/shares`), 403, 'forbidden');

    await share('admin', { user_id: member.userId });
    const toViewer = await m.post(`/documents/${doc}/share`, { user_id: viewer.userId, permission: 'edit' });
    assert.equal(toViewer.statusCode, 201, toViewer.body);
    const list = await m.get(`/documents/${doc}/shares`);
    assert.equal(list.statusCode, 200);
    const shares = list.json().shares;
    assert.deepEqual(shares.map((s: { user_id: string }) => s.user_id).sort(), [member.userId, viewer.userId].sort());
    assert.deepEqual(shares.map((s: { user_name: string }) => s.user_name).sort(), ['member user', 'viewer user']);
  });

  it('caps a viewer at view whatever the share says, and viewers cannot create', async () => {
    const v = as(viewer);
    assert.equal((await v.get(`/documents/${doc}`)).statusCode, 200);
    assertError(await v.put(`/documents/${doc}`, { filename: 'v.txt' }), 403, 'forbidden');
    const body = multipart([{ name: 'file', filename: 'v.txt', content: Buffer.from('v') }]);
    const up = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload',
      payload: body.payload,
      headers: { ...viewer.headers, ...body.headers },
    });
    assertError(up, 403, 'forbidden');
    assertError(await v.post('/folders', { name: 'Mine' }), 403, 'forbidden');
    assertError(await v.post('/tags', { name: 'mine' }), 403, 'forbidden');
  });

  it('workspace shares reach the workspace members', async () => {
    assertError(await as(member2).get(`/documents/${doc}`), 404, 'not_found');
    const ws = await as(tenant).post('/workspaces', { name: 'Team' });
    assert.equal(ws.statusCode, 201, ws.body);
    const added = await as(tenant).post(`/workspaces/${ws.json().id}/members`, { user_id: member2.userId });
    assert.ok(added.statusCode === 200 || added.statusCode === 201, added.body);
    const res = await share('edit', { workspace_id: ws.json().id });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().workspace_id, ws.json().id);
    assert.equal((await as(member2).put(`/documents/${doc}`, { tags: ['team'] })).statusCode, 200);
    const listed = (await as(tenant).get(`/documents/${doc}/shares`)).json().shares;
    assert.ok(
      listed.some(
        (s: { workspace_id?: string; workspace_name?: string }) =>
          s.workspace_id === ws.json().id && s.workspace_name === 'Team',
      ),
    );
  });

  it('members have full rights on what they uploaded, and others do not see it', async () => {
    const own = await uploadOk(ctx(), member.headers, { filename: 'mine.txt' });
    const m = as(member);
    assert.equal((await m.put(`/documents/${own}`, { filename: 'still-mine.txt' })).statusCode, 200);
    assert.equal((await m.get(`/documents/${own}/shares`)).statusCode, 200);
    assertError(await as(member2).get(`/documents/${own}`), 404, 'not_found');
    assert.equal((await as(admin).get(`/documents/${own}`)).statusCode, 200);
    assert.equal((await m.del(`/documents/${own}`)).statusCode, 200);
  });

  it('validates share targets: one of user_id or workspace_id, of this tenant, with a known permission', async () => {
    const other = await createTenant(ctx(), { tier: 'enterprise' });
    const stranger = await loginAs(ctx(), other, 'member');
    assertError(await share('view', { user_id: stranger.userId }), 404, 'not_found');
    assertError(await share('view', { workspace_id: '01890000-0000-7000-8000-000000000000' }), 404, 'not_found');
    assertError(await share('view', {}), 400, 'validation_error');
    assertError(await share('view', { user_id: member.userId, workspace_id: 'x' }), 400, 'validation_error');
    assertError(await share('owner', { user_id: member.userId }), 400, 'validation_error');
  });

  it('removing a share removes the access', async () => {
    const shares = (await as(tenant).get(`/documents/${doc}/shares`)).json().shares as {
      share_id: string;
      user_id?: string;
    }[];
    const viewerShare = shares.find((s) => s.user_id === viewer.userId)!;
    const res = await as(tenant).del(`/documents/${doc}/shares/${viewerShare.share_id}`);
    assert.equal(res.statusCode, 200, res.body);
    assertError(await as(viewer).get(`/documents/${doc}`), 404, 'not_found');
    assertError(await as(tenant).del(`/documents/${doc}/shares/${viewerShare.share_id}`), 404, 'not_found');
    // A member with admin on the document may delete it.
    assert.equal((await as(member).del(`/documents/${doc}`)).statusCode, 200);
  });
});
