import assert from 'node:assert/strict';
import { it } from 'node:test';
import { multipart, uploadOk } from '../helpers.ts';
import { describeEachDialect } from '../../../support/app.ts';
import { createTenant, loginAs } from '../../../support/fixtures.ts';

describeEachDialect('folder document counts follow every write', (ctx) => {
  it('upload, batch upload, move, delete and force delete keep the counts right, for admins and members', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const h = tenant.headers;
    const folder = async (name: string, parentId: string | null = null) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/folders',
          headers: h,
          payload: { name, parent_id: parentId },
        })
      ).json().id as string;
    const counts = async (headers: Record<string, string>) => {
      const res = await t.app.inject({ url: '/api/v1/folders', headers });
      assert.equal(res.statusCode, 200, res.body);
      return Object.fromEntries(
        res.json().folders.map((f: { name: string; document_count: number }) => [f.name, f.document_count]),
      );
    };
    const a = await folder('A');
    const b = await folder('B');
    const child = await folder('Child', a);

    const d1 = await uploadOk(t, h, { filename: 'one.txt', fields: { folder_id: a } });
    await uploadOk(t, h, { filename: 'two.txt', fields: { folder_id: a } });
    const batch = multipart([
      { name: 'folder_id', value: b },
      { name: 'files[]', filename: 'x.txt', content: Buffer.from('x') },
      { name: 'files[]', filename: 'y.txt', content: Buffer.from('y') },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload-batch',
      payload: batch.payload,
      headers: { ...h, ...batch.headers },
    });
    assert.equal(res.statusCode, 201, res.body);
    await uploadOk(t, h, { filename: 'deep.txt', fields: { folder_id: child } });
    assert.deepEqual(await counts(h), { A: 2, B: 2, Child: 1 });

    // Move one document from A to B, then delete one of B's.
    assert.equal(
      (await t.app.inject({ method: 'PUT', url: `/api/v1/documents/${d1}`, headers: h, payload: { folder_id: b } }))
        .statusCode,
      200,
    );
    assert.deepEqual(await counts(h), { A: 1, B: 3, Child: 1 });
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/documents/${d1}`, headers: h })).statusCode,
      200,
    );
    assert.deepEqual(await counts(h), { A: 1, B: 2, Child: 1 });
    const single = await t.app.inject({ url: `/api/v1/folders/${b}`, headers: h });
    assert.equal(single.json().document_count, 2);

    // A member sees only their own uploads in the counts.
    const member = await loginAs(t, tenant, 'member');
    await uploadOk(t, member.headers, { filename: 'mine.txt', fields: { folder_id: b } });
    assert.deepEqual(await counts(member.headers), { A: 0, B: 1, Child: 0 });
    assert.deepEqual(await counts(h), { A: 1, B: 3, Child: 1 });

    // Force-deleting A removes its subtree; B is untouched.
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/folders/${a}?force=true`, headers: h });
    assert.equal(del.statusCode, 200, del.body);
    assert.deepEqual(await counts(h), { B: 3 });
  });
});
