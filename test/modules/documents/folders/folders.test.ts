import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, type TestApp } from '../../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../../support/fixtures.ts';
import { documentCount, eventually, uploadOk } from '../helpers.ts';

async function createFolder(t: TestApp, tenant: TestTenant, payload: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/folders', headers: tenant.headers, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

describeEachDialect(
  'folders',
  (ctx) => {
    let tenant: TestTenant;
    const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
      ctx().app.inject({
        method,
        url: `/api/v1${url}`,
        headers: tenant.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    it('creates folders with defaults, nested under a parent', async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      const top = await createFolder(ctx(), tenant, { name: 'Invoices' });
      assert.equal(top.parent_id, null);
      assert.equal(top.color, '#6B7280');
      assert.equal(top.icon, 'folder');
      assert.equal(top.document_count, 0);
      const sub = await createFolder(ctx(), tenant, {
        name: '2025',
        parent_id: top.id,
        color: '#FF0000',
        icon: 'calendar-2',
      });
      assert.equal(sub.parent_id, top.id);
      assert.equal(sub.color, '#FF0000');
      assert.equal(sub.icon, 'calendar-2');
      const got = await req('GET', `/folders/${sub.id}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(Object.keys(got.json()).sort(), [
        'color',
        'created_at',
        'document_count',
        'icon',
        'id',
        'name',
        'parent_id',
        'updated_at',
      ]);
      assertError(
        await req('POST', '/folders', { name: 'x', parent_id: '01890000-0000-7000-8000-000000000000' }),
        404,
        'not_found',
      );
    });

    it('validates name, colour and icon', async () => {
      for (const payload of [
        { name: '' },
        { name: '   ' },
        { name: 'a/b' },
        { name: 'bell\u0007' },
        { name: 'x'.repeat(256) },
        { name: 'ok', color: 'red' },
        { name: 'ok', color: '#12345' },
        { name: 'ok', icon: 'Folder' },
        { name: 'ok', icon: 'x'.repeat(65) },
        { name: 'ok', icon: 'has space' },
        { name: 'ok', extra: 1 },
      ]) {
        assertError(await req('POST', '/folders', payload), 400, 'validation_error');
      }
      const edge = await createFolder(ctx(), tenant, { name: 'y'.repeat(255), icon: 'a'.repeat(64) });
      assert.equal(edge.name.length, 255);
    });

    it('keeps sibling names unique case-insensitively (409), but allows the same name elsewhere', async () => {
      const parent = await createFolder(ctx(), tenant, { name: 'Contracts' });
      assertError(await req('POST', '/folders', { name: 'contracts' }), 409, 'conflict');
      await createFolder(ctx(), tenant, { name: 'CONTRACTS', parent_id: parent.id });
      assertError(await req('POST', '/folders', { name: 'Contracts', parent_id: parent.id }), 409, 'conflict');
      const other = await createFolder(ctx(), tenant, { name: 'Other' });
      assertError(await req('PUT', `/folders/${other.id}`, { name: 'CONTRACTS' }), 409, 'conflict');
    });

    it('lists flat, top level, or children, with document counts unless asked not to', async () => {
      const t2 = await createTenant(ctx(), { tier: 'enterprise' });
      tenant = t2;
      const a = await createFolder(ctx(), tenant, { name: 'A' });
      const b = await createFolder(ctx(), tenant, { name: 'B', parent_id: a.id });
      const c = await createFolder(ctx(), tenant, { name: 'C', parent_id: b.id });
      await uploadOk(ctx(), tenant.headers, { fields: { folder_id: a.id } });
      await uploadOk(ctx(), tenant.headers, { fields: { folder_id: a.id } });
      await uploadOk(ctx(), tenant.headers, { fields: { folder_id: c.id } });
      const all = (await req('GET', '/folders')).json().folders;
      assert.deepEqual(all.map((f: { name: string }) => f.name).sort(), ['A', 'B', 'C']);
      const byName = Object.fromEntries(
        all.map((f: { name: string; document_count: number; parent_id: string | null }) => [f.name, f]),
      );
      assert.equal(byName.A.document_count, 2);
      assert.equal(byName.B.document_count, 0);
      assert.equal(byName.C.document_count, 1);
      assert.equal(byName.C.parent_id, b.id);
      assert.equal(byName.A.updated_at, undefined);
      assert.deepEqual(
        (await req('GET', '/folders?parent_id=root')).json().folders.map((f: { id: string }) => f.id),
        [a.id],
      );
      assert.deepEqual(
        (await req('GET', `/folders?parent_id=${b.id}`)).json().folders.map((f: { id: string }) => f.id),
        [c.id],
      );
      const noCounts = (await req('GET', '/folders?include_document_count=false')).json().folders;
      assert.ok(noCounts.every((f: object) => !('document_count' in f)));
      assert.equal((await req('GET', `/folders/${a.id}`)).json().document_count, 2);
      assertError(await req('GET', '/folders?parent_id=01890000-0000-7000-8000-000000000000'), 404, 'not_found');
    });

    it('updates partially, moves with parent_id, refuses moves into its own subtree and empty bodies', async () => {
      const a = await createFolder(ctx(), tenant, { name: 'Move A' });
      const b = await createFolder(ctx(), tenant, { name: 'Move B', parent_id: a.id });
      const c = await createFolder(ctx(), tenant, { name: 'Move C', parent_id: b.id });
      const renamed = await req('PUT', `/folders/${b.id}`, { color: '#00FF00' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(renamed.json().name, 'Move B');
      assert.equal(renamed.json().color, '#00FF00');
      assert.ok(renamed.json().updated_at);
      assertError(await req('PUT', `/folders/${a.id}`, { parent_id: c.id }), 400, 'validation_error');
      assertError(await req('PUT', `/folders/${a.id}`, { parent_id: a.id }), 400, 'validation_error');
      assertError(await req('PUT', `/folders/${a.id}`, {}), 400, 'validation_error');
      assertError(
        await req('PUT', `/folders/${a.id}`, { parent_id: '01890000-0000-7000-8000-000000000000' }),
        404,
        'not_found',
      );
      const moved = await req('PUT', `/folders/${c.id}`, { parent_id: null });
      assert.equal(moved.json().parent_id, null);
      const back = await req('PUT', `/folders/${c.id}`, { parent_id: a.id, name: 'Renamed C' });
      assert.equal(back.json().parent_id, a.id);
      assert.equal(back.json().name, 'Renamed C');
      assertError(await req('PUT', '/folders/01890000-0000-7000-8000-000000000000', { name: 'x' }), 404, 'not_found');
    });

    it('refuses to delete a non-empty folder without force; force removes the subtree, its documents and their bytes', async () => {
      const top = await createFolder(ctx(), tenant, { name: 'Doomed' });
      const mid = await createFolder(ctx(), tenant, { name: 'Mid', parent_id: top.id });
      const leaf = await createFolder(ctx(), tenant, { name: 'Leaf', parent_id: mid.id });
      const keep = await createFolder(ctx(), tenant, { name: 'Keep' });
      const inLeaf = await uploadOk(ctx(), tenant.headers, { fields: { folder_id: leaf.id } });
      await uploadOk(ctx(), tenant.headers, { fields: { folder_id: top.id } });
      const kept = await uploadOk(ctx(), tenant.headers, { fields: { folder_id: keep.id } });
      const before = await documentCount(ctx(), tenant.tenantId);

      const res = await req('DELETE', `/folders/${mid.id}`);
      const body = assertError(res, 400, 'folder_not_empty');
      assert.equal(body.code, 'FOLDER_NOT_EMPTY');
      assertError(await req('DELETE', `/folders/${leaf.id}`), 400, 'folder_not_empty');

      const storageKey = (
        await ctx()
          .container.database.db.selectFrom('documents')
          .select('storage_key')
          .where('id', '=', inLeaf)
          .executeTakeFirstOrThrow()
      ).storage_key;
      const forced = await req('DELETE', `/folders/${top.id}?force=true`);
      assert.equal(forced.statusCode, 200, forced.body);
      assert.equal(typeof forced.json().message, 'string');
      for (const id of [top.id, mid.id, leaf.id]) assertError(await req('GET', `/folders/${id}`), 404, 'not_found');
      assert.equal(await documentCount(ctx(), tenant.tenantId), before - 2);
      assertError(await req('GET', `/documents/${inLeaf}`), 404, 'not_found');
      assert.equal((await req('GET', `/documents/${kept}`)).statusCode, 200);
      // The bytes go through the queued deletion job.
      const jobs = await ctx()
        .container.database.db.selectFrom('jobs')
        .select('payload')
        .where('kind', '=', 'documents.delete_blob')
        .execute();
      assert.ok(jobs.some((j) => j.payload.includes(storageKey)));
      await eventually(async () => (await ctx().container.blobs.head(storageKey)) === null, 'blob removal');

      const empty = await createFolder(ctx(), tenant, { name: 'Empty' });
      assert.equal((await req('DELETE', `/folders/${empty.id}`)).statusCode, 200);
      assertError(await req('DELETE', `/folders/${empty.id}`), 404, 'not_found');
    });

    it('reads query booleans as true/false/1/0 (contract §9): include_document_count=0, force=1', async () => {
      const top = await createFolder(ctx(), tenant, { name: 'Bool top' });
      await createFolder(ctx(), tenant, { name: 'Bool child', parent_id: top.id });
      await uploadOk(ctx(), tenant.headers, { fields: { folder_id: top.id } });
      const zero = await req('GET', '/folders?parent_id=root&include_document_count=0');
      assert.equal(zero.statusCode, 200, zero.body);
      assert.ok(zero.json().folders.every((f: object) => !('document_count' in f)));
      const one = await req('GET', '/folders?parent_id=root&include_document_count=1');
      assert.equal(one.json().folders.find((f: { id: string }) => f.id === top.id).document_count, 1);
      assertError(await req('GET', '/folders?include_document_count=maybe'), 400, 'validation_error');
      assertError(await req('DELETE', `/folders/${top.id}?force=0`), 400, 'folder_not_empty');
      assertError(await req('DELETE', `/folders/${top.id}?force=yes`), 400, 'validation_error');
      const forced = await req('DELETE', `/folders/${top.id}?force=1`);
      assert.equal(forced.statusCode, 200, forced.body);
      assertError(await req('GET', `/folders/${top.id}`), 404, 'not_found');
    });
  },
  { worker: true },
);
