import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ConflictError, DocuVault, NotFoundError } from '../../../packages/sdk/src/index.ts';
import { origin } from '../../sdk/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';

/*
 * Saved views of the documents page (issue 33, docs/console.md "Saved views"), through HTTP on both
 * dialects: create, list (by name), get, rename and change, delete; the validation of names,
 * folders and filters; one person's views unseen (404) by another of the tenant, an admin too, and
 * by another tenant; API keys keep views of their own.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

describeEachDialect('views: saved views per person', (ctx) => {
  let tenant: TestTenant;
  let other: TestTenant;
  let member: LoggedInUser;
  let viewer: LoggedInUser;
  let admin: LoggedInUser;
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: object, payload?: unknown) =>
    ctx().app.inject({
      method,
      url: `/api/v1${url}`,
      headers: headers as Record<string, string>,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const ok = async (res: Awaited<ReturnType<typeof call>>, status = 200): Promise<Json> => {
    assert.equal(res.statusCode, status, res.body);
    return res.json();
  };
  const names = async (headers: object) =>
    ((await ok(await call('GET', '/saved-views', headers))).data as Json[]).map((v) => v.name);

  before(async () => {
    tenant = await createTenant(ctx());
    other = await createTenant(ctx());
    member = await loginAs(ctx(), tenant, 'member');
    viewer = await loginAs(ctx(), tenant, 'viewer');
    admin = await loginAs(ctx(), tenant, 'admin');
  });

  it('creates, lists by name, gets, renames, changes and deletes a view', async () => {
    const folder = await ok(await call('POST', '/folders', tenant.headers, { name: 'Invoices 2026' }), 201);
    const made = await ok(
      await call('POST', '/saved-views', member.headers, {
        name: 'PDF invoices',
        folder_id: folder.id,
        filters: { sort: 'name', type: 'application/pdf', view: 'grid' },
      }),
      201,
    );
    assert.equal(made.name, 'PDF invoices');
    assert.equal(made.folder_id, folder.id);
    assert.deepEqual(made.filters, { sort: 'name', type: 'application/pdf', view: 'grid' });
    assert.equal(made.created_at, made.updated_at);
    await ok(await call('POST', '/saved-views', member.headers, { name: 'all recent' }), 201);
    const listed = await ok(await call('GET', '/saved-views?page_size=1', member.headers));
    assert.equal(listed.total, 2);
    assert.equal(listed.page_size, 1);
    assert.deepEqual(
      listed.data.map((v: Json) => v.name),
      ['all recent'],
      'by name, case-insensitively',
    );
    assert.deepEqual(await ok(await call('GET', `/saved-views/${made.id}`, member.headers)), made);

    const renamed = await ok(await call('PATCH', `/saved-views/${made.id}`, member.headers, { name: '  Invoices  ' }));
    assert.equal(renamed.name, 'Invoices', 'trimmed');
    assert.deepEqual(renamed.filters, made.filters, 'what is not given stays');
    const moved = await ok(
      await call('PATCH', `/saved-views/${made.id}`, member.headers, { folder_id: null, filters: { sort: 'size' } }),
    );
    assert.equal(moved.folder_id, null);
    assert.deepEqual(moved.filters, { sort: 'size' }, 'filters replaced whole');
    assert.equal(moved.name, 'Invoices');

    await ok(await call('DELETE', `/saved-views/${made.id}`, member.headers));
    assertError(await call('GET', `/saved-views/${made.id}`, member.headers), 404, 'not_found');
    assertError(await call('DELETE', `/saved-views/${made.id}`, member.headers), 404, 'not_found');
    assert.deepEqual(await names(member.headers), ['all recent']);
  });

  it('refuses bad names, unknown folders, bad filters and a second view of a name that reads alike', async () => {
    const create = (body: object) => call('POST', '/saved-views', viewer.headers, body);
    assertError(await create({ name: '' }), 400, 'validation_error');
    assertError(await create({ name: '   ' }), 400, 'validation_error');
    assertError(await create({ name: 'bell\u0007' }), 400, 'validation_error');
    assertError(await create({ name: 'x'.repeat(256) }), 400, 'validation_error');
    assertError(await create({ filters: {} }), 400, 'validation_error');
    assertError(await create({ name: 'n', extra: 1 }), 400, 'validation_error');
    assertError(await create({ name: 'n', filters: { sort: 3 } }), 400, 'validation_error');
    assertError(await create({ name: 'n', filters: { 'Bad Key': 'x' } }), 400, 'validation_error');
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    assertError(await create({ name: 'n', filters: tooMany }), 400, 'validation_error');
    assertError(await create({ name: 'n', filters: { q: 'x'.repeat(501) } }), 400, 'validation_error');
    assertError(await create({ name: 'n', folder_id: '0190f0a0-0000-7000-8000-000000000000' }), 404, 'not_found');

    // A viewer may keep views (saving one changes nothing others see).
    const first = await ok(await create({ name: 'Straße' }), 201);
    const clash = assertError(await create({ name: 'STRASSE' }), 409, 'conflict');
    assert.match(clash.message, /already have a saved view/);
    const second = await ok(await create({ name: 'Other' }), 201);
    assertError(await call('PATCH', `/saved-views/${second.id}`, viewer.headers, { name: 'strasse' }), 409, 'conflict');
    assertError(await call('PATCH', `/saved-views/${second.id}`, viewer.headers, {}), 400, 'validation_error');
    // Another person may use the same name.
    await ok(await call('POST', '/saved-views', admin.headers, { name: 'Straße' }), 201);
    await ok(await call('DELETE', `/saved-views/${first.id}`, viewer.headers));
  });

  it("keeps each person's views their own: another user, an admin, an API key and another tenant get 404", async () => {
    const mine = await ok(await call('POST', '/saved-views', member.headers, { name: 'Private view' }), 201);
    const intruders = [admin.headers, tenant.headers, other.headers];
    for (const headers of intruders) {
      assertError(await call('GET', `/saved-views/${mine.id}`, headers), 404, 'not_found');
      assertError(await call('PATCH', `/saved-views/${mine.id}`, headers, { name: 'Taken' }), 404, 'not_found');
      assertError(await call('DELETE', `/saved-views/${mine.id}`, headers), 404, 'not_found');
      assert.ok(!(await names(headers)).includes('Private view'));
    }
    assert.ok((await names(member.headers)).includes('Private view'), 'still there, unchanged');
    // An API key keeps views of its own, unseen by the users of its tenant.
    const keyView = await ok(await call('POST', '/saved-views', tenant.headers, { name: 'Key view' }), 201);
    assertError(await call('GET', `/saved-views/${keyView.id}`, member.headers), 404, 'not_found');
    assert.deepEqual(await names(tenant.headers), ['Key view']);
    // Another tenant's folder is not one of ours.
    const theirs = await ok(await call('POST', '/folders', other.headers, { name: 'Theirs' }), 201);
    assertError(
      await call('POST', '/saved-views', member.headers, { name: 'Foreign', folder_id: theirs.id }),
      404,
      'not_found',
    );
  });

  it('is reached through the SDK: savedViews create, list, update, get, delete, with typed errors', async () => {
    const client = new DocuVault({ baseUrl: await origin(ctx()), apiKey: other.apiKey });
    const made = await client.savedViews.create({ name: 'From the SDK', filters: { view: 'grid' } });
    assert.equal(made.folder_id, null);
    await assert.rejects(client.savedViews.create({ name: 'from the sdk' }), ConflictError);
    const listed = await client.savedViews.list();
    assert.deepEqual(
      listed.data.map((v) => v.name),
      ['From the SDK'],
    );
    const renamed = await client.savedViews.update(made.id, { name: 'Renamed', filters: {} });
    assert.deepEqual([renamed.name, renamed.filters], ['Renamed', {}]);
    assert.equal((await client.savedViews.get(made.id)).name, 'Renamed');
    await client.savedViews.delete(made.id);
    await assert.rejects(client.savedViews.get(made.id), NotFoundError);
  });
});
