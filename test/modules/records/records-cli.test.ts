import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConflictError, DocuVault } from '../../../packages/sdk/src/index.ts';
import { cli, cliHome } from '../../cli/helpers.ts';
import { uploadOk } from '../documents/helpers.ts';
import { origin } from '../../sdk/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';

/** Issue 32 item 4, the holds part: the SDK's `records` methods and the CLI's `holds` and `retention` commands. */
describeEachDialect('records: SDK and CLI', (ctx) => {
  it('places, shows and releases a hold; a delete under it fails with LEGAL_HOLD naming it; manages a retention rule', async () => {
    const tenant = await createTenant(ctx());
    const base = await origin(ctx());
    const home = await cliHome();
    const sdk = new DocuVault({ baseUrl: base, apiKey: tenant.apiKey });
    assert.equal((await cli(['login', '--url', base, '--api-key', tenant.apiKey], home.env)).code, 0);
    const docId = await uploadOk(ctx(), tenant.headers, {
      filename: 'contract.txt',
      content: Buffer.from('The contract under dispute.'),
    });
    const folder = (
      await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: tenant.headers,
        payload: { name: 'Contracts' },
      })
    ).json().id as string;

    const placed = await cli(['holds', 'place', 'Dispute C', '--documents', docId, '--json'], home.env);
    assert.equal(placed.code, 0, placed.stderr);
    const hold = JSON.parse(placed.stdout);
    assert.deepEqual([hold.name, hold.status, hold.document_ids], ['Dispute C', 'active', [docId]]);
    const error = await sdk.call('deleteDocument', { path: { id: docId } }).catch((e: unknown) => e);
    assert.ok(error instanceof ConflictError, String(error));
    assert.equal(error.code, 'LEGAL_HOLD');
    assert.equal(error.details?.['hold_id'], hold.id);
    assert.equal(error.details?.['hold_name'], 'Dispute C');
    const listed = await cli(['holds', 'list'], home.env);
    assert.ok(listed.stdout.includes(hold.id) && listed.stdout.includes('Dispute C'), listed.stdout);
    assert.equal((await cli(['holds', 'place', 'Nothing'], home.env)).code, 2);
    assert.equal((await sdk.records.getHold(hold.id)).status, 'active');
    const released = await cli(['holds', 'release', hold.id], home.env);
    assert.equal(released.code, 0, released.stderr);
    assert.equal((await sdk.records.listHolds({ status: 'released' })).data[0]?.id, hold.id);
    await sdk.call('deleteDocument', { path: { id: docId } });

    const added = await cli(
      ['retention', 'add', folder, '--keep-days', '365', '--action', 'delete', '--json'],
      home.env,
    );
    assert.equal(added.code, 0, added.stderr);
    const rule = JSON.parse(added.stdout);
    assert.deepEqual([rule.folder_id, rule.keep_days, rule.basis, rule.action], [folder, 365, 'created', 'delete']);
    assert.equal((await cli(['retention', 'add', folder, '--keep-days', 'soon'], home.env)).code, 2);
    assert.equal((await cli(['retention', 'run', rule.id], home.env)).code, 0);
    const shown = await cli(['retention', 'show', rule.id], home.env);
    assert.match(shown.stdout, /delete after 365 days from created/);
    assert.equal((await sdk.records.listRules()).total, 1);
    assert.equal((await cli(['retention', 'remove', rule.id], home.env)).code, 0);
    assert.equal((await sdk.records.listRules()).total, 0);
  });
});
