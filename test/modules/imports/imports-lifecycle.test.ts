import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import {
  GOOGLE_DOC,
  GOOGLE_FORM,
  GOOGLE_SHEET,
  SHORTCUT,
  startDriveServer,
} from '../../support/google-drive-server.ts';
import {
  action,
  addTree,
  BASE,
  type Json,
  createProject,
  credentials,
  driveEnv,
  items,
  waitForStatus,
} from './helpers.ts';

const drive = await startDriveServer();
after(() => drive.close());

describeEachDialect(
  'import projects: lifecycle, scan filters, export, folder tree',
  (ctx) => {
    it('creates draft without credentials, configured once complete; updates while allowed; never shows credentials', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const draft = await createProject(t, tenant.headers, { folder_ids: ['x'] });
      assert.equal(draft.status, 'draft');
      assert.equal(draft.config.enable_ai, true);
      assert.deepEqual(draft.config.export_formats, {
        document: 'pdf',
        spreadsheet: 'xlsx',
        presentation: 'pdf',
        drawing: 'pdf',
      });
      assert.equal(draft.config.filters.include_shared, false);
      assert.equal(draft.config.has_credentials, false);
      assertError(await action(t, tenant.headers, draft.id, 'scan'), 409, 'conflict');

      const put = await t.app.inject({
        method: 'PUT',
        url: `${BASE}/${draft.id}`,
        headers: tenant.headers,
        payload: { config: { credentials: credentials(drive) } },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(put.json().status, 'configured');
      assert.equal(put.json().config.has_credentials, true);
      assert.doesNotMatch(put.body, /ya29|refresh-token|client-secret/);
      const stored = await t.container.database.db
        .selectFrom('import_projects')
        .select('credentials')
        .where('id', '=', draft.id)
        .executeTakeFirstOrThrow();
      assert.doesNotMatch(stored.credentials ?? '', /ya29|refresh-token/);

      const configured = await createProject(t, tenant.headers, { folder_ids: ['x'], credentials: credentials(drive) });
      assert.equal(configured.status, 'configured');
      const list = (await t.app.inject({ url: BASE, headers: tenant.headers })).json();
      assert.equal(list.total, 2);
      assert.doesNotMatch(JSON.stringify(list), /ya29/);

      assertError(
        await t.app.inject({ method: 'PUT', url: `${BASE}/${draft.id}`, headers: tenant.headers, payload: {} }),
        400,
        'validation_error',
      );
      assertError(
        await t.app.inject({
          method: 'POST',
          url: BASE,
          headers: tenant.headers,
          payload: { name: 'x', source_type: 'dropbox' },
        }),
        400,
        'validation_error',
      );
      assertError(
        await t.app.inject({
          method: 'POST',
          url: BASE,
          headers: tenant.headers,
          payload: { name: 'x', source_type: 'google_drive', config: { export_formats: { document: 'xlsx' } } },
        }),
        400,
        'validation_error',
      );
      // Delete only in terminal states.
      assertError(
        await t.app.inject({ method: 'DELETE', url: `${BASE}/${draft.id}`, headers: tenant.headers }),
        409,
        'conflict',
      );
      // start, pause, resume and cancel are refused outside their states.
      for (const verb of ['start', 'pause', 'resume', 'cancel'])
        assertError(await action(t, tenant.headers, configured.id, verb), 409, 'conflict');
    });

    it('scans with filters, imports with export formats, recreates the folder tree, and skips duplicates', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const folder = await t.app.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: tenant.headers,
        payload: { name: 'Imported' },
      });
      const targetId = folder.json().id;
      const tree = addTree(drive, [
        { path: 'readme.txt', content: 'Hello from the root folder' },
        { path: 'Reports/q1.txt', content: 'First quarter figures' },
        { path: 'Reports/Archive/old.txt', content: 'An old report' },
        { path: 'Reports/~$lock.txt', content: 'lock file' },
        { path: 'scratch.tmp', content: 'temporary' },
        { path: 'big.txt', content: 'x'.repeat(5000) },
        { path: 'shared.txt', content: 'someone else', ownedByMe: false },
        { path: 'Plan', content: 'Project plan text', mimeType: GOOGLE_DOC },
        { path: 'Budget', content: 'budget', mimeType: GOOGLE_SHEET },
        { path: 'Survey', mimeType: GOOGLE_FORM },
        { path: 'copy-of-readme.txt', content: 'Hello from the root folder' },
      ]);
      // A shortcut to a folder already walked, and a file with two parents: each listed once.
      drive.add({
        id: `${tree.rootId}-shortcut`,
        name: 'Reports link',
        mimeType: SHORTCUT,
        parents: [tree.rootId],
        shortcutTargetId: tree.folderIds.get('Reports')!,
      });
      drive.files.get(tree.ids['Reports/q1.txt']!)!.parents.push(tree.folderIds.get('Reports/Archive')!);

      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        target_folder_id: targetId,
        enable_ai: false,
        filters: { exclude_patterns: ['~$*', '*.tmp'], max_file_size_bytes: 1000 },
        export_formats: { document: 'txt', spreadsheet: 'csv' },
      });
      assert.equal((await action(t, tenant.headers, project.id, 'scan')).statusCode, 202);
      const ready = await waitForStatus(t, tenant.headers, project.id, ['ready']);
      assert.equal(ready.total_items, 11);
      const all = await items(t, tenant.headers, project.id);
      const byName = new Map<string, Json>(all.map((i: Json) => [i.name, i]));
      assert.equal(
        all.filter((i: { source_file_id: string }) => i.source_file_id === tree.ids['Reports/q1.txt']).length,
        1,
      );
      assert.equal(byName.get('~$lock.txt').skip_reason, 'excluded_pattern');
      assert.equal(byName.get('scratch.tmp').skip_reason, 'excluded_pattern');
      assert.equal(byName.get('big.txt').skip_reason, 'too_large');
      assert.equal(byName.get('shared.txt').skip_reason, 'shared');
      assert.equal(byName.get('Survey').skip_reason, 'unsupported_type');
      assert.equal(byName.get('Plan').status, 'pending');
      assert.equal(byName.get('Plan').size, null);
      assert.equal(byName.get('q1.txt').path, `${drive.files.get(tree.rootId)!.name}/Reports/q1.txt`);
      // Items filters.
      assert.equal((await items(t, tenant.headers, project.id, '&status=skipped')).length, 5);
      assert.equal((await items(t, tenant.headers, project.id, '&type=tmp')).length, 1);
      assert.equal((await items(t, tenant.headers, project.id, `&type=${encodeURIComponent(GOOGLE_DOC)}`)).length, 1);
      assert.equal((await items(t, tenant.headers, project.id, '&min_size=1000')).length, 1);
      assert.equal((await items(t, tenant.headers, project.id, '&max_size=10&status=pending')).length, 0);
      assertError(
        await t.app.inject({ url: `${BASE}/${project.id}/items?status=done`, headers: tenant.headers }),
        400,
        'validation_error',
      );

      assert.equal((await action(t, tenant.headers, project.id, 'start')).statusCode, 202);
      const done = await waitForStatus(t, tenant.headers, project.id, ['completed', 'completed_with_errors']);
      assert.equal(
        done.status,
        'completed',
        JSON.stringify(await items(t, tenant.headers, project.id, '&status=failed')),
      );
      assert.equal(done.processed_items, 5);
      assert.equal(done.skipped_items, 6, 'five filtered, one duplicate');
      const copy = (await items(t, tenant.headers, project.id)).find((i: Json) => i.skip_reason === 'duplicate');
      assert.ok(copy, 'one of the two identical files is skipped as a duplicate');
      assert.ok(copy.document_id, 'a duplicate points at the document it duplicates');

      const progress = (await t.app.inject({ url: `${BASE}/${project.id}/progress`, headers: tenant.headers })).json();
      assert.equal(progress.status, 'completed');
      assert.equal(progress.progress_percent, 100);
      assert.equal(progress.processed_items, 5);
      assert.equal(progress.total_items, 11);
      assert.ok(progress.started_at);
      assert.equal(progress.estimated_completion, null);

      // The tree under the target: Root N / Reports / Archive.
      const folders = (await t.app.inject({ url: '/api/v1/folders', headers: tenant.headers })).json().folders as {
        id: string;
        name: string;
        parent_id: string | null;
      }[];
      const root = folders.find((f) => f.parent_id === targetId)!;
      assert.equal(root.name, drive.files.get(tree.rootId)!.name);
      const reports = folders.find((f) => f.parent_id === root.id && f.name === 'Reports')!;
      assert.ok(folders.find((f) => f.parent_id === reports.id && f.name === 'Archive'));
      const docs = (
        await t.app.inject({ url: `/api/v1/documents?folder_id=${root.id}&page_size=100`, headers: tenant.headers })
      ).json();
      const names = docs.data.map((d: { filename: string }) => d.filename).sort();
      assert.ok(names.includes('Plan.txt') && names.includes('Budget.csv'), names.join(','));
      const plan = docs.data.find((d: { filename: string }) => d.filename === 'Plan.txt');
      assert.equal(plan.ai_status, 'skipped', 'enable_ai=false is passed to processing');

      // Delete in a terminal state: the project goes, the documents stay.
      const del = await t.app.inject({ method: 'DELETE', url: `${BASE}/${project.id}`, headers: tenant.headers });
      assert.equal(del.statusCode, 200, del.body);
      assertError(await t.app.inject({ url: `${BASE}/${project.id}`, headers: tenant.headers }), 404, 'not_found');
      assert.equal(
        (await t.app.inject({ url: `/api/v1/documents/${plan.id}`, headers: tenant.headers })).statusCode,
        200,
      );
    });

    it('is Team tier and above, for administrators, and invisible to other tenants', async () => {
      const t = ctx();
      for (const tier of ['free', 'starter', 'pro']) {
        const low = await createTenant(t, { tier });
        const res = await t.app.inject({
          method: 'POST',
          url: BASE,
          headers: low.headers,
          payload: { name: 'x', source_type: 'google_drive' },
        });
        const body = assertError(res, 403, 'tier_limit_exceeded');
        assert.equal(body.details.required_tier, 'team');
        assertError(await t.app.inject({ url: BASE, headers: low.headers }), 403, 'tier_limit_exceeded');
      }
      const tenant = await createTenant(t, { tier: 'enterprise' });
      const project = await createProject(t, tenant.headers, {});
      const member = await loginAs(t, tenant, 'member');
      assertError(await t.app.inject({ url: BASE, headers: member.headers }), 403, 'forbidden');
      const owner = await loginAs(t, tenant, 'owner');
      assert.equal((await t.app.inject({ url: `${BASE}/${project.id}`, headers: owner.headers })).statusCode, 200);

      const other = await createTenant(t);
      for (const [method, path] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/scan'],
        ['POST', '/start'],
        ['POST', '/pause'],
        ['POST', '/resume'],
        ['POST', '/cancel'],
        ['GET', '/progress'],
        ['GET', '/items'],
      ] as const) {
        const res = await t.app.inject({
          method,
          url: `${BASE}/${project.id}${path}`,
          headers: other.headers,
          ...(method === 'PUT' ? { payload: { name: 'stolen' } } : {}),
        });
        assertError(res, 404, 'not_found');
      }
      const agent = await t.app.inject({
        method: 'POST',
        url: `${BASE}/${project.id}/agents`,
        headers: other.headers,
        payload: { agent_type: 'ai_tag', phase: 'post-import' },
      });
      assertError(agent, 404, 'not_found');
      assert.equal((await t.app.inject({ url: BASE, headers: other.headers })).json().total, 0);
    });

    it('assigns agents with validation', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const project = await createProject(t, tenant.headers, {});
      const ok = await t.app.inject({
        method: 'POST',
        url: `${BASE}/${project.id}/agents`,
        headers: tenant.headers,
        payload: { agent_type: 'ai_tag', phase: 'batch', batch_size: 10, auto_approve: true, config: { max_tags: 3 } },
      });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(ok.json().auto_approve, true);
      assert.deepEqual(ok.json().config, { max_tags: 3 });
      assertError(
        await t.app.inject({
          method: 'POST',
          url: `${BASE}/${project.id}/agents`,
          headers: tenant.headers,
          payload: { agent_type: 'ai_tag', phase: 'batch' },
        }),
        400,
        'validation_error',
      );
      assertError(
        await t.app.inject({
          method: 'POST',
          url: `${BASE}/${project.id}/agents`,
          headers: tenant.headers,
          payload: { agent_type: 'robot', phase: 'completion' },
        }),
        400,
        'validation_error',
      );
    });
  },
  { worker: true, env: driveEnv(drive) },
);
