import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { BASE } from './helpers.ts';

// Issue 26 point 7: `target_folder_id` must name a folder of the caller's tenant that they may file
// documents into (docs/imports.md); import projects themselves are for owners, admins and API keys.

describeEachDialect('import projects: the target folder', (ctx) => {
  let tenant: TestTenant;
  let other: TestTenant;
  let admin: LoggedInUser;
  let ownFolder: string;
  let foreignFolder: string;
  const call = (headers: Record<string, string>, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    ctx().app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const project = (targetFolderId: string | null) => ({
    name: 'Drive import',
    source_type: 'google_drive',
    config: { folder_ids: ['drive-folder-1'], target_folder_id: targetFolderId },
  });
  const folder = async (t: TestTenant, name: string) => {
    const res = await call(t.headers, 'POST', '/api/v1/folders', { name });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id as string;
  };
  const projectCount = async () => (await call(tenant.headers, 'GET', BASE)).json().total as number;

  before(async () => {
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
    other = await createTenant(ctx(), { tier: 'enterprise' });
    admin = await loginAs(ctx(), tenant, 'admin');
    ownFolder = await folder(tenant, 'Imported');
    foreignFolder = await folder(other, 'Someone else’s');
  });

  it('another tenant’s folder (or an unknown one) is 404 on create and update, and nothing is stored', async () => {
    const before = await projectCount();
    for (const headers of [tenant.headers, admin.headers]) {
      const refused = assertError(await call(headers, 'POST', BASE, project(foreignFolder)), 404, 'not_found');
      assert.equal(refused.details.resource_type, 'folder');
      assertError(await call(headers, 'POST', BASE, project('01a00000-0000-7000-8000-000000000000')), 404, 'not_found');
    }
    assert.equal(await projectCount(), before);

    const created = await call(admin.headers, 'POST', BASE, project(ownFolder));
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().config.target_folder_id, ownFolder);
    const id = created.json().id as string;
    assertError(
      await call(admin.headers, 'PUT', `${BASE}/${id}`, { config: { target_folder_id: foreignFolder } }),
      404,
      'not_found',
    );
    assert.equal((await call(admin.headers, 'GET', `${BASE}/${id}`)).json().config.target_folder_id, ownFolder);
    // Back to the top level (null) is always allowed.
    const top = await call(admin.headers, 'PUT', `${BASE}/${id}`, { config: { target_folder_id: null } });
    assert.equal(top.statusCode, 200, top.body);
    assert.equal(top.json().config.target_folder_id, null);
    // The other tenant never sees a project of this one, and its folder is untouched.
    assertError(await call(other.headers, 'GET', `${BASE}/${id}`), 404, 'not_found');
  });

  it('members, custom roles and viewers cannot import into any folder, their own or not', async () => {
    const member = await loginAs(ctx(), tenant, 'member');
    const custom = await loginAs(ctx(), tenant, 'member', {
      email: `fin-${tenant.subdomain}@example.com`,
      roles: ['finance_manager'],
    });
    const viewer = await loginAs(ctx(), tenant, 'viewer');
    const membersFolder = (await call(member.headers, 'POST', '/api/v1/folders', { name: 'Member’s' })).json()
      .id as string;
    const before = await projectCount();
    for (const who of [member, custom, viewer]) {
      for (const target of [membersFolder, ownFolder, foreignFolder, null]) {
        assertError(await call(who.headers, 'POST', BASE, project(target)), 403, 'forbidden');
      }
    }
    assert.equal(await projectCount(), before);
  });
});
