import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DocuVault, PreconditionFailedError } from '../../packages/sdk/src/index.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant } from '../support/fixtures.ts';
import { origin } from './helpers.ts';

describeEachDialect('sdk: updates under If-Match', (ctx) => {
  it('reads an ETag, updates with it, and refuses to overwrite a change made since', async () => {
    const tenant = await createTenant(ctx());
    const alice = new DocuVault({ baseUrl: await origin(ctx()), apiKey: tenant.apiKey });
    const bob = new DocuVault({ baseUrl: await origin(ctx()), apiKey: tenant.apiKey });
    const folder = await alice.call('createFolder', { body: { name: 'Contracts' } });

    const read = await alice.callWithETag('getFolder', { path: { id: folder.id } });
    assert.equal(read.value.name, 'Contracts');
    assert.match(String(read.etag), /^".+"$/);
    const sameRead = await bob.callWithETag('getFolder', { path: { id: folder.id } });
    assert.equal(sameRead.etag, read.etag);

    await bob.call('updateFolder', {
      path: { id: folder.id },
      body: { name: 'Contracts 2026' },
      ifMatch: sameRead.etag!,
    });
    const refused = await alice
      .call('updateFolder', { path: { id: folder.id }, body: { color: '#FF0000' }, ifMatch: read.etag! })
      .then(
        () => null,
        (error: unknown) => error,
      );
    assert.ok(refused instanceof PreconditionFailedError);
    assert.equal(refused.status, 412);
    assert.equal(refused.code, 'PRECONDITION_FAILED');
    const current = await alice.callWithETag('getFolder', { path: { id: folder.id } });
    assert.equal(current.value.name, 'Contracts 2026');
    assert.equal((refused.details as { etag: string }).etag, current.etag);
  });
});
