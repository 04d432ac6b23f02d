import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { uploadOk } from '../helpers.ts';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../../support/fixtures.ts';

// Issue 26 point 6 (docs/security.md "Access inside a tenant"): a folder is renamed, moved,
// restyled or deleted by the user who created it and by owners, admins and API keys; anyone but a
// viewer files things into any folder. A refusal is 403 `forbidden` (every folder is visible).

describeEachDialect('folders: who may change a folder', (ctx) => {
  let tenant: TestTenant;
  let admin: LoggedInUser;
  let alice: LoggedInUser;
  let custom: LoggedInUser;
  let viewer: LoggedInUser;
  const call = (
    headers: Record<string, string>,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
  ) =>
    ctx().app.inject({
      method,
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const folder = async (
    headers: Record<string, string>,
    name: string,
    parentId: string | null = null,
  ): Promise<string> => {
    const res = await call(headers, 'POST', '/folders', { name, parent_id: parentId });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id;
  };
  const nameOf = async (id: string) => (await call(tenant.headers, 'GET', `/folders/${id}`)).json().name as string;

  before(async () => {
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
    admin = await loginAs(ctx(), tenant, 'admin');
    alice = await loginAs(ctx(), tenant, 'member', { email: `alice-${tenant.subdomain}@example.com` });
    custom = await loginAs(ctx(), tenant, 'member', {
      email: `fin-${tenant.subdomain}@example.com`,
      roles: ['finance_manager'],
    });
    viewer = await loginAs(ctx(), tenant, 'viewer');
  });

  it('a member (or custom role) cannot rename, move, restyle or delete the tenant’s top-level folders', async () => {
    const byAdmin = await folder(admin.headers, 'Finance');
    const byKey = await folder(tenant.headers, 'Legal');
    const elsewhere = await folder(alice.headers, 'Alice projects');
    for (const top of [byAdmin, byKey]) {
      const before = await nameOf(top);
      for (const who of [alice, custom]) {
        assertError(
          await call(who.headers, 'PUT', `/folders/${top}`, { name: 'Renamed by a member' }),
          403,
          'forbidden',
        );
        assertError(await call(who.headers, 'PUT', `/folders/${top}`, { color: '#000000' }), 403, 'forbidden');
        assertError(await call(who.headers, 'PUT', `/folders/${top}`, { parent_id: elsewhere }), 403, 'forbidden');
        assertError(await call(who.headers, 'DELETE', `/folders/${top}`), 403, 'forbidden');
      }
      assertError(
        await call(viewer.headers, 'PUT', `/folders/${top}`, { name: 'Renamed by a viewer' }),
        403,
        'forbidden',
      );
      assertError(await call(viewer.headers, 'DELETE', `/folders/${top}`), 403, 'forbidden');
      assert.equal(await nameOf(top), before);
      assert.equal((await call(tenant.headers, 'GET', `/folders/${top}`)).json().parent_id, null);
    }
    // Another tenant's member gets 404, as for any id of another tenant.
    const other = await createTenant(ctx(), { tier: 'enterprise' });
    const outsider = await loginAs(ctx(), other, 'member');
    assertError(await call(outsider.headers, 'PUT', `/folders/${byAdmin}`, { name: 'x' }), 404, 'not_found');
  });

  it('the creator changes their own folder; owners, admins and API keys change anyone’s', async () => {
    const mine = await folder(alice.headers, 'Alice drafts');
    const res = await call(alice.headers, 'PUT', `/folders/${mine}`, { name: 'Alice notes', color: '#112233' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Alice notes');
    // Another member, even with a custom role, may not.
    assertError(await call(custom.headers, 'PUT', `/folders/${mine}`, { name: 'Taken over' }), 403, 'forbidden');
    const owner = await loginAs(ctx(), tenant, 'owner');
    for (const [who, name] of [
      [admin.headers, 'By admin'],
      [owner.headers, 'By owner'],
      [tenant.headers, 'By key'],
    ] as const) {
      const renamed = await call(who, 'PUT', `/folders/${mine}`, { name });
      assert.equal(renamed.statusCode, 200, renamed.body);
    }
    assert.equal(await nameOf(mine), 'By key');
    // The creator deletes their own (empty) folder.
    const scratch = await folder(alice.headers, 'Scratch');
    assertError(await call(custom.headers, 'DELETE', `/folders/${scratch}`), 403, 'forbidden');
    assert.equal((await call(alice.headers, 'DELETE', `/folders/${scratch}`)).statusCode, 200);
  });

  it('anyone but a viewer files subfolders and documents into any folder', async () => {
    const shared = await folder(admin.headers, 'Shared inbox');
    const sub = await folder(alice.headers, 'From Alice', shared);
    await uploadOk(ctx(), custom.headers, {
      filename: 'note.txt',
      content: Buffer.from('a note'),
      fields: { folder_id: shared },
    });
    // Moving one's own folder under someone else's is filing into it.
    const own = await folder(custom.headers, 'Fin');
    assert.equal((await call(custom.headers, 'PUT', `/folders/${own}`, { parent_id: shared })).statusCode, 200);
    assertError(
      await call(viewer.headers, 'POST', '/folders', { name: 'Viewer', parent_id: shared }),
      403,
      'forbidden',
    );
    assert.equal((await call(tenant.headers, 'GET', `/folders/${sub}`)).json().parent_id, shared);
  });
});
