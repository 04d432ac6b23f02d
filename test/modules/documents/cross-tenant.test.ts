import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import { multipart, uploadOk } from './helpers.ts';

describeEachDialect('documents, folders, tags, shares and batch jobs across tenants', (ctx) => {
  it('answers 404 to another tenant on every endpoint, and lists none of it', async () => {
    const a = await createTenant(ctx(), { tier: 'enterprise' });
    const b = await createTenant(ctx(), { tier: 'enterprise' });
    const inject = (
      headers: Record<string, string>,
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      url: string,
      payload?: object,
    ) => ctx().app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });

    const folder = (await inject(a.headers, 'POST', '/folders', { name: 'A only' })).json().id;
    const doc = await uploadOk(ctx(), a.headers, { fields: { folder_id: folder, tags: 'private' } });
    const tag = (await inject(a.headers, 'GET', '/tags')).json().data[0].id;
    const aMember = await loginAs(ctx(), a, 'member');
    const shareId = (
      await inject(a.headers, 'POST', `/documents/${doc}/share`, { user_id: aMember.userId, permission: 'view' })
    ).json().share_id;
    const batchBody = multipart([{ name: 'files[]', filename: 'b.txt', content: Buffer.from('b') }]);
    const batch = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload-batch',
      payload: batchBody.payload,
      headers: { ...a.headers, ...batchBody.headers },
    });
    const batchId = batch.json().batch_job_id;

    const bMember = await loginAs(ctx(), b, 'member');
    const bAdmin = await loginAs(ctx(), b, 'admin');
    for (const headers of [b.headers, bAdmin.headers, bMember.headers]) {
      const cases: [string, string, object?][] = [
        ['GET', `/folders/${folder}`],
        ['GET', `/folders?parent_id=${folder}`],
        ['PUT', `/folders/${folder}`, { name: 'stolen' }],
        ['DELETE', `/folders/${folder}?force=true`],
        ['GET', `/documents/${doc}`],
        ['PUT', `/documents/${doc}`, { filename: 'stolen.txt' }],
        ['DELETE', `/documents/${doc}`],
        ['GET', `/documents/${doc}/download`],
        ['GET', `/documents/${doc}/content`],
        ['GET', `/documents/${doc}/thumbnail`],
        ['POST', `/documents/${doc}/share`, { user_id: aMember.userId, permission: 'admin' }],
        ['GET', `/documents/${doc}/shares`],
        ['DELETE', `/documents/${doc}/shares/${shareId}`],
        ['DELETE', `/tags/${tag}`],
        ['GET', `/batch-jobs/${batchId}`],
        ['POST', '/folders', { name: 'child', parent_id: folder }],
      ];
      for (const [method, url, payload] of cases) {
        const res = await inject(headers, method as 'GET', url, payload);
        assertError(res, 404, 'not_found');
      }
      // Moving b's own document into a's folder, or sharing b's document with a's user: also 404.
      const own = await uploadOk(ctx(), b.headers);
      assertError(await inject(headers, 'PUT', `/documents/${own}`, { folder_id: folder }), 404, 'not_found');
      assertError(
        await inject(b.headers, 'POST', `/documents/${own}/share`, { user_id: aMember.userId, permission: 'view' }),
        404,
        'not_found',
      );
      const upload = multipart([
        { name: 'folder_id', value: folder },
        { name: 'file', filename: 'x.txt', content: Buffer.from('x') },
      ]);
      assertError(
        await ctx().app.inject({
          method: 'POST',
          url: '/api/v1/documents/upload',
          payload: upload.payload,
          headers: { ...b.headers, ...upload.headers },
        }),
        404,
        'not_found',
      );
      // Filters naming a's folder or tag find nothing.
      assert.equal((await inject(headers, 'GET', `/documents?folder_id=${folder}`)).json().total, 0);
      assert.equal((await inject(headers, 'GET', `/documents?tag_id=${tag}`)).json().total, 0);
    }
    const bFolders = (await inject(b.headers, 'GET', '/folders')).json().folders;
    assert.equal(bFolders.length, 0);
    assert.ok((await inject(b.headers, 'GET', '/tags')).json().data.every((t: { id: string }) => t.id !== tag));
    // a's data is untouched.
    assert.equal((await inject(a.headers, 'GET', `/documents/${doc}`)).json().filename, 'notes.txt');
    assert.equal((await inject(a.headers, 'GET', `/folders/${folder}`)).json().name, 'A only');
    assert.equal((await inject(a.headers, 'GET', `/documents/${doc}/shares`)).json().shares.length, 1);
  });
});
