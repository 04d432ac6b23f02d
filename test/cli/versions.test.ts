import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { DocuVault } from '../../packages/sdk/src/index.ts';
import { waitFor } from '../jobs/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant } from '../support/fixtures.ts';
import { origin } from '../sdk/helpers.ts';
import { cli, cliHome } from './helpers.ts';

const V1 = 'Parking policy. Staff park in the north lot, which opens at seven.';
const V2 = 'Parking policy, revised. Staff park in the river garage, which opens at six.';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

describeEachDialect(
  'document versions through processing, chat, the SDK and the CLI',
  (ctx) => {
    it('the text, search and chat citations follow the current version', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'enterprise' });
      const sdk = new DocuVault({ baseUrl: await origin(t), apiKey: tenant.apiKey });
      const dir = (await cliHome()).dir;
      await writeFile(join(dir, 'parking.txt'), V1);
      await writeFile(join(dir, 'parking-v2.txt'), V2);
      const doc = await sdk.documents.upload(join(dir, 'parking.txt'));
      await sdk.documents.waitUntilProcessed(doc.id, { timeoutMs: 60_000 });
      const made = await sdk.documents.uploadVersion(doc.id, join(dir, 'parking-v2.txt'));
      assert.equal(made.number, 2);
      assert.equal(made.created, true);
      // Processing starts over on the new file (a version upload answers before extraction ends).
      await waitFor(
        async () => (await sdk.call('getDocument', { path: { id: doc.id } })).status === 'completed',
        'version 2 processed',
        60_000,
      );
      await sdk.documents.waitUntilProcessed(doc.id, { timeoutMs: 60_000 });
      const content = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc.id}/content`,
        headers: tenant.headers,
      });
      assert.match(content.json().content, /river garage/);
      assert.doesNotMatch(content.json().content, /north lot/);

      const search = async (query: string) =>
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/search?mode=text&q=${encodeURIComponent(query)}`,
            headers: tenant.headers,
          })
        ).json() as Json;
      await waitFor(
        async () => (await search('garage')).results?.some((r: Json) => r.document.id === doc.id),
        'the new text indexed',
        30_000,
      );
      assert.ok(
        !(await search('north lot')).results?.some((r: Json) => r.document.id === doc.id),
        'the old text is no longer found',
      );

      const session = await sdk.call('createChatSession', { body: { document_id: doc.id, name: 'Parking' } });
      const answer = await sdk.call('askChatSession', {
        path: { id: session.id },
        body: { message: 'Where do staff park?' },
      });
      assert.ok(answer.citations.length > 0, 'the answer cites a passage');
      for (const c of answer.citations) assert.equal(c.version, 2);
      assert.match(answer.citations.map((c: Json) => c.text).join(' '), /garage/);
    });

    it('SDK and CLI: list, upload, download and restore versions', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'enterprise' });
      const base = await origin(t);
      const sdk = new DocuVault({ baseUrl: base, apiKey: tenant.apiKey });
      const home = await cliHome();
      assert.equal((await cli(['login', '--url', base, '--api-key', tenant.apiKey], home.env)).code, 0);
      await writeFile(join(home.dir, 'rota.txt'), V1);
      await writeFile(join(home.dir, 'rota-v2.txt'), V2);
      const doc = await sdk.documents.upload(join(home.dir, 'rota.txt'));

      // SDK: identical file adds nothing; a new one is version 2; ranges; restore.
      const same = await sdk.documents.uploadVersion(doc.id, new Blob([V1]), { filename: 'rota.txt' });
      assert.equal(same.created, false);
      assert.equal(same.number, 1);
      const dup = await sdk.documents.upload(new Blob([V1]), { filename: 'copy.txt', onDuplicate: 'skip' });
      assert.equal(dup.id, doc.id);
      assert.equal(dup.duplicate_of, doc.id);

      // CLI: upload, list, download, restore.
      const up = await cli(['versions', 'upload', doc.id, join(home.dir, 'rota-v2.txt')], home.env);
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stdout, /version 2 .* is current/);
      const list = await cli(['versions', doc.id], home.env);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /\* v2/);
      assert.match(list.stdout, /rota\.txt/);
      const listed = JSON.parse((await cli(['versions', 'list', doc.id, '--json'], home.env)).stdout);
      assert.equal(listed.current_version, 2);
      const target = join(home.dir, 'v1.txt');
      const saved = await cli(['versions', 'download', doc.id, '1', '-o', target], home.env);
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(await readFile(target, 'utf8'), V1);
      assert.equal((await cli(['versions', 'download', doc.id, '2', '-o', '-'], home.env)).stdout, V2);
      assert.equal((await cli(['versions', 'download', doc.id, 'x'], home.env)).code, 2);
      const missing = await cli(['versions', 'download', doc.id, '9', '-o', join(home.dir, 'nine.txt')], home.env);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /HTTP 404/);

      const part = await sdk.documents.downloadVersion(doc.id, 2, { range: 'bytes=0-13' });
      assert.equal(part.status, 206);
      assert.equal(await part.text(), V2.slice(0, 14));
      assert.equal((await sdk.documents.versions(doc.id)).versions.length, 2);

      const restored = await cli(['versions', 'restore', doc.id, '1'], home.env);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /version 1 .* current again/);
      assert.equal((await sdk.documents.restoreVersion(doc.id, 1)).restored, false);
      assert.equal((await sdk.documents.versions(doc.id)).current_version, 1);
      const help = await cli(['help'], home.env);
      assert.match(help.stdout, /versions upload <document-id> <path>/);
    });
  },
  { worker: true },
);
