import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { startDriveServer } from '../../support/google-drive-server.ts';
import { addTree, createProject, credentials, driveEnv, scanAndImport } from './helpers.ts';

const drive = await startDriveServer();
after(() => drive.close());

describeEachDialect(
  'imported names follow the name rule (issue 26 item 7)',
  (ctx) => {
    it('cleans Drive folder and file names, and files a decomposed twin into the existing folder', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { tier: 'team' });
      const req = (url: string, method: 'GET' | 'POST' = 'GET', payload?: object) =>
        t.app.inject({ method, url: `/api/v1${url}`, headers: tenant.headers, ...(payload ? { payload } : {}) });
      const target = (await req('/folders', 'POST', { name: 'Imports' })).json();
      // Already there, precomposed: the import's decomposed "Café" is the same folder.
      const cafe = (await req('/folders', 'POST', { name: 'Caf\u00E9', parent_id: target.id })).json();
      const tree = addTree(drive, [
        { path: 'Sec\u200Bret/invoice\u202Etxt.exe.txt', content: 'one' },
        { path: 'Cafe\u0301/menu\u2066.txt', content: 'two' },
      ]);
      // The two Drive folders are the project's roots: each becomes a folder under the target.
      const roots = [tree.folderIds.get('Sec\u200Bret')!, tree.folderIds.get('Cafe\u0301')!];
      const project = await createProject(t, tenant.headers, {
        folder_ids: roots,
        credentials: credentials(drive),
        target_folder_id: target.id,
      });
      const done = await scanAndImport(t, tenant.headers, project.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));

      const folders = (await req('/folders')).json().folders as {
        id: string;
        name: string;
        parent_id: string | null;
      }[];
      const underTarget = folders
        .filter((f) => f.parent_id === target.id)
        .map((f) => f.name)
        .sort();
      assert.deepEqual(underTarget, ['Caf\u00E9', 'Secret']);
      const secret = folders.find((f) => f.parent_id === target.id && f.name === 'Secret')!;
      const docs = (await req('/documents?page_size=100')).json().data as { filename: string; folder_id: string }[];
      assert.deepEqual(
        docs.map((d) => [d.filename, d.folder_id]).sort(),
        [
          ['invoicetxt.exe.txt', secret.id],
          ['menu.txt', cafe.id],
        ].sort(),
      );
    });
  },
  { worker: true, env: driveEnv(drive) },
);
