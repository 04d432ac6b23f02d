import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';

// Over a real socket a body arrives in pieces, so a refused file can fail its type check before the
// blob store has started reading it (app.inject hands the whole body at once and never shows this).
// A refusal must answer its error and leave the process running: no uncaught exception.
describeEachDialect('uploads refused for their content over a streamed body', (ctx) => {
  let base: string;
  let tenant: TestTenant;
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);

  before(async () => {
    process.on('uncaughtException', onCrash);
    await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(ctx().app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(ctx(), { tier: 'pro' });
  });
  after(() => process.off('uncaughtException', onCrash));

  const send = (path: string, files: [string, string][]) => {
    const form = new FormData();
    for (const [name, text] of files) form.append(path.endsWith('batch') ? 'files' : 'file', new Blob([text]), name);
    return fetch(`${base}/api/v1${path}`, { method: 'POST', headers: tenant.headers, body: form });
  };

  it('answers 415 for a single upload whose bytes are not its type, every time, without crashing', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await send('/documents/upload', [['fake.pdf', 'not a pdf at all']]);
      assert.equal(res.status, 415, await res.text());
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(crashes, []);
    const list = await (await fetch(`${base}/api/v1/documents`, { headers: tenant.headers })).json();
    assert.equal(list.total, 0, 'no refused file became a document');
  });

  it('lists the refused file of a batch and keeps the others, without crashing', async () => {
    const res = await send('/documents/upload-batch', [
      ['fake.pdf', 'not a pdf at all'],
      ['notes.txt', 'plain text notes'],
    ]);
    const body = await res.json();
    assert.equal(res.status, 201, JSON.stringify(body));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(crashes, []);
    assert.equal(JSON.stringify(body).includes('fake.pdf'), true, 'the refusal names the file');
  });
});
