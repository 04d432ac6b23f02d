import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs } from '../../support/fixtures.ts';
import {
  FOLDER,
  GOOGLE_DOC,
  GOOGLE_DRAWING,
  GOOGLE_SLIDES,
  startDriveServer,
} from '../../support/google-drive-server.ts';
import {
  action,
  addTree,
  BASE,
  createProject,
  credentials,
  driveEnv,
  type Json,
  items,
  scanAndImport,
  waitForStatus,
} from './helpers.ts';

const drive = await startDriveServer();
after(() => drive.close());

// Rules of the spec ("Import project" states) and contract §12 beyond the lifecycle suite: a scan
// that fails, updates of a ready project, shared files, paging, progress mid-import, and every export target.

describeEachDialect(
  'import projects: scan failures, updates of a ready project, shared files, paging, progress, export targets',
  (ctx) => {
    it('a scan that cannot succeed moves the project to failed with the reason; it can be scanned again or deleted', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const put = (id: string, payload: object) =>
        t.app.inject({ method: 'PUT', url: `${BASE}/${id}`, headers: tenant.headers, payload });

      // Unique per run: both dialects share the Drive server.
      const lateId = `folder-not-there-yet-${t.dialect}`;
      const missing = await createProject(t, tenant.headers, { folder_ids: [lateId], credentials: credentials(drive) });
      assert.equal((await action(t, tenant.headers, missing.id, 'scan')).statusCode, 202);
      const failed = await waitForStatus(t, tenant.headers, missing.id, ['failed', 'ready']);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /no longer exists|cannot see/);
      assert.equal(failed.total_items, 0);
      // failed is terminal for everything but a new scan and delete.
      assertError(await put(missing.id, { name: 'x' }), 409, 'conflict');
      for (const verb of ['start', 'pause', 'resume', 'cancel'])
        assert.equal(
          assertError(await action(t, tenant.headers, missing.id, verb), 409, 'conflict').details.status,
          'failed',
        );
      // The folder appears in Drive: scanning again succeeds and clears the error.
      drive.add({ id: lateId, name: 'Late folder', mimeType: FOLDER, parents: ['my-drive'] });
      drive.add({
        id: `${lateId}-file`,
        name: 'late.txt',
        mimeType: 'text/plain',
        parents: [lateId],
        content: Buffer.from('arrived late'),
      });
      assert.equal((await action(t, tenant.headers, missing.id, 'scan')).statusCode, 202);
      const ready = await waitForStatus(t, tenant.headers, missing.id, ['ready', 'failed']);
      assert.equal(ready.status, 'ready');
      assert.equal(ready.error, null);
      assert.equal(ready.total_items, 1);

      // A file id is not a folder.
      const tree = addTree(drive, [{ path: 'plain.txt', content: 'not a folder' }]);
      const notFolder = await createProject(t, tenant.headers, {
        folder_ids: [tree.ids['plain.txt']!],
        credentials: credentials(drive),
      });
      await action(t, tenant.headers, notFolder.id, 'scan');
      assert.match((await waitForStatus(t, tenant.headers, notFolder.id, ['failed', 'ready'])).error, /not a folder/);

      // Credentials Drive refuses, with nothing to refresh them with.
      const refused = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: { access_token: 'ya29.revoked' },
      });
      await action(t, tenant.headers, refused.id, 'scan');
      const refusedDone = await waitForStatus(t, tenant.headers, refused.id, ['failed', 'ready']);
      assert.equal(refusedDone.status, 'failed');
      assert.match(refusedDone.error, /refused the credentials/);
      assert.doesNotMatch(JSON.stringify(refusedDone), /ya29/);

      // Delete is allowed in failed.
      assert.equal(
        (await t.app.inject({ method: 'DELETE', url: `${BASE}/${refused.id}`, headers: tenant.headers })).statusCode,
        200,
      );
      assertError(await t.app.inject({ url: `${BASE}/${refused.id}`, headers: tenant.headers }), 404, 'not_found');
    });

    it('updates a ready project: other changes keep it ready, folders, filters or export formats send it back to configured; refused once started', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const put = (id: string, payload: object) =>
        t.app.inject({ method: 'PUT', url: `${BASE}/${id}`, headers: tenant.headers, payload });
      const tree = addTree(drive, [
        { path: 'a.txt', content: 'first file of the update test' },
        { path: 'b.tmp', content: 'second file of the update test' },
        { path: 'Plan', content: 'a plan', mimeType: GOOGLE_DOC },
      ]);
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
        filters: { include_types: ['txt', 'tmp', 'pdf'] },
      });
      const rescan = async () => {
        assert.equal((await action(t, tenant.headers, project.id, 'scan')).statusCode, 202);
        return waitForStatus(t, tenant.headers, project.id, ['ready']);
      };
      const scanned = await rescan();
      assert.equal(scanned.total_items, 3);
      assert.ok(scanned.scanned_at);

      // Name, description, AI and target: the scan still holds.
      const renamed = await put(project.id, {
        name: 'Renamed',
        description: 'kept ready',
        config: { enable_ai: true },
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(renamed.json().status, 'ready');
      assert.equal(renamed.json().name, 'Renamed');
      assert.equal(renamed.json().total_items, 3);
      assert.equal(renamed.json().config.enable_ai, true);

      // Filters: the scan is stale; its items go.
      const filtered = (await put(project.id, { config: { filters: { exclude_patterns: ['*.tmp'] } } })).json();
      assert.equal(filtered.status, 'configured');
      assert.equal(filtered.total_items, 0);
      assert.equal(filtered.scanned_at, null);
      assert.deepEqual(filtered.config.filters.include_types, ['txt', 'tmp', 'pdf'], 'filters merge field by field');
      assert.equal((await items(t, tenant.headers, project.id)).length, 0);
      const again = await rescan();
      assert.equal((await items(t, tenant.headers, project.id, '&status=skipped'))[0].skip_reason, 'excluded_pattern');
      assert.equal(again.total_items, 3);

      // Export formats decide whether a native file passes the type filter: a stale scan too.
      // (Plan passes include_types 'pdf' exported as PDF; as DOCX it would not.)
      assert.equal((await items(t, tenant.headers, project.id)).find((i: Json) => i.name === 'Plan').status, 'pending');
      const docx = (await put(project.id, { config: { export_formats: { document: 'docx' } } })).json();
      assert.equal(docx.status, 'configured');
      await rescan();
      assert.equal(
        (await items(t, tenant.headers, project.id)).find((i: Json) => i.name === 'Plan').skip_reason,
        'type_not_included',
      );

      // Without folders (or credentials) the project is a draft again.
      const emptied = (await put(project.id, { config: { folder_ids: [] } })).json();
      assert.equal(emptied.status, 'draft');
      assertError(await action(t, tenant.headers, project.id, 'scan'), 409, 'conflict');
      assert.equal((await put(project.id, { config: { folder_ids: [tree.rootId] } })).json().status, 'configured');

      // Once started, updates are refused, in progress and after.
      await rescan();
      let release!: () => void;
      drive.hold = new Promise<void>((resolve) => (release = resolve));
      try {
        assert.equal((await action(t, tenant.headers, project.id, 'start')).statusCode, 202);
        assert.equal(
          assertError(await put(project.id, { name: 'late' }), 409, 'conflict').details.status,
          'in_progress',
        );
        assertError(
          await t.app.inject({ method: 'DELETE', url: `${BASE}/${project.id}`, headers: tenant.headers }),
          409,
          'conflict',
        );
      } finally {
        drive.hold = null;
        release();
      }
      const done = await waitForStatus(t, tenant.headers, project.id, ['completed', 'completed_with_errors']);
      assert.equal(done.status, 'completed');
      assert.equal(done.name, 'Renamed');
      assert.equal(assertError(await put(project.id, { name: 'late' }), 409, 'conflict').details.status, 'completed');
      assertError(await action(t, tenant.headers, project.id, 'scan'), 409, 'conflict');
    });

    it('includes files shared with the user only with include_shared, asking Drive for shared drives then', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const tree = addTree(drive, [
        { path: 'mine.txt', content: 'my own file' },
        { path: 'theirs.txt', content: 'a colleague shared this', ownedByMe: false },
      ]);
      const listsOf = (from: number) =>
        drive.log
          .slice(from)
          .filter((r) => r.url.startsWith('/drive/v3/files?') && r.url.includes(encodeURIComponent(tree.rootId)));
      let from = drive.log.length;
      const own = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });
      await action(t, tenant.headers, own.id, 'scan');
      await waitForStatus(t, tenant.headers, own.id, ['ready']);
      assert.equal(
        (await items(t, tenant.headers, own.id)).find((i: Json) => i.name === 'theirs.txt').skip_reason,
        'shared',
      );
      assert.ok(listsOf(from).every((r) => !r.url.includes('includeItemsFromAllDrives=true')));

      from = drive.log.length;
      const shared = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
        filters: { include_shared: true },
      });
      const done = await scanAndImport(t, tenant.headers, shared.id);
      assert.equal(done.processed_items, 2);
      assert.equal(done.skipped_items, 0);
      const lists = listsOf(from);
      assert.ok(
        lists.length > 0 &&
          lists.every(
            (r) => r.url.includes('includeItemsFromAllDrives=true') && r.url.includes('supportsAllDrives=true'),
          ),
        JSON.stringify(lists),
      );
    });

    it('reads folders of more than one page and pages the items', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const count = 1_005;
      const tree = addTree(
        drive,
        Array.from({ length: count }, (_, i) => ({
          path: `f-${String(i).padStart(4, '0')}.txt`,
          content: `file ${i}`,
        })),
      );
      const from = drive.log.length;
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
      });
      await action(t, tenant.headers, project.id, 'scan');
      const ready = await waitForStatus(t, tenant.headers, project.id, ['ready']);
      assert.equal(ready.total_items, count);
      const lists = drive.log.slice(from).filter((r) => r.url.startsWith('/drive/v3/files?'));
      assert.equal(lists.length, 2, 'two pages of at most 1000');
      assert.ok(lists[1]!.url.includes('pageToken=1000'));
      assert.ok(lists.every((r) => r.url.includes('pageSize=1000') && r.url.includes('fields=')));

      const seen = new Set<string>();
      for (let page = 1; page <= 11; page++) {
        const body = (
          await t.app.inject({ url: `${BASE}/${project.id}/items?page=${page}&page_size=100`, headers: tenant.headers })
        ).json();
        assert.equal(body.total, count);
        assert.equal(body.page, page);
        assert.equal(body.page_size, 100);
        assert.equal(body.data.length, page === 11 ? 5 : 100);
        for (const item of body.data) seen.add(item.source_file_id);
      }
      assert.equal(seen.size, count, 'every file once across the pages');
      assertError(
        await t.app.inject({ url: `${BASE}/${project.id}/items?page_size=101`, headers: tenant.headers }),
        400,
        'validation_error',
      );
    });

    it('shows progress while importing: the file being imported, the start, bytes and an estimate', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const big = 'b'.repeat(64 * 1024);
      const tree = addTree(drive, [
        { path: 'small.txt', content: 'a small file' },
        { path: 'Slow/big.txt', content: big },
      ]);
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });
      await action(t, tenant.headers, project.id, 'scan');
      const ready = await waitForStatus(t, tenant.headers, project.id, ['ready']);
      const before = (await t.app.inject({ url: `${BASE}/${project.id}/progress`, headers: tenant.headers })).json();
      assert.equal(before.status, 'ready');
      assert.equal(before.started_at, null);
      assert.equal(before.current_item, null);
      assert.equal(before.estimated_completion, null);
      assert.equal(before.pending_items, 2);
      assert.equal(before.total_bytes, 12 + big.length);
      assert.equal(ready.progress_percent, 0);

      drive.slow = { chunkBytes: 1024, delayMs: 200 };
      try {
        await action(t, tenant.headers, project.id, 'start');
        const during = await waitFor(
          async () => {
            const p = (await t.app.inject({ url: `${BASE}/${project.id}/progress`, headers: tenant.headers })).json();
            return p.processed_items === 1 && p.current_item ? p : undefined;
          },
          'the small file imported while the big one streams',
          20_000,
        );
        assert.equal(during.status, 'in_progress');
        assert.equal(during.current_item, `${drive.files.get(tree.rootId)!.name}/Slow/big.txt`);
        assert.ok(Date.parse(during.started_at) > 0);
        assert.ok(
          Date.parse(during.estimated_completion) >= Date.parse(during.started_at),
          'an estimate once a file is done',
        );
        assert.equal(during.progress_percent, 50);
        assert.equal(during.pending_items, 1);
        assert.equal(during.migrated_bytes, 12);
      } finally {
        drive.slow = null;
      }
      const done = await waitForStatus(t, tenant.headers, project.id, ['completed']);
      const after = (await t.app.inject({ url: `${BASE}/${done.id}/progress`, headers: tenant.headers })).json();
      assert.equal(after.current_item, null);
      assert.equal(after.migrated_bytes, after.total_bytes);
    });

    it('runs for a signed-in admin (bearer token, tenant header, CSRF token); the documents are theirs and stay after delete', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const admin = await loginAs(t, tenant, 'admin');
      const tree = addTree(drive, [{ path: 'owned.txt', content: `imported by a user ${t.dialect}` }]);
      const payload = {
        name: 'By a user',
        source_type: 'google_drive',
        config: { folder_ids: [tree.rootId], credentials: credentials(drive), enable_ai: false },
      };
      const { 'x-csrf-token': _csrf, ...withoutCsrf } = admin.headers;
      assertError(
        await t.app.inject({ method: 'POST', url: BASE, headers: withoutCsrf, payload }),
        403,
        'csrf_token_invalid',
      );
      const viewer = await loginAs(t, tenant, 'viewer');
      assertError(
        await t.app.inject({ method: 'POST', url: BASE, headers: viewer.headers, payload }),
        403,
        'forbidden',
      );
      const created = await t.app.inject({ method: 'POST', url: BASE, headers: admin.headers, payload });
      assert.equal(created.statusCode, 201, created.body);
      const done = await scanAndImport(t, admin.headers, created.json().id);
      assert.equal(done.processed_items, 1);
      const [item] = await items(t, admin.headers, done.id);
      const owner = await t.container.database.db
        .selectFrom('documents')
        .select('owner_id')
        .where('id', '=', item.document_id)
        .executeTakeFirstOrThrow();
      assert.equal(owner.owner_id, admin.userId);

      // Delete takes the project's items, folder mapping and agents with it; the document stays.
      const agent = await t.app.inject({
        method: 'POST',
        url: `${BASE}/${done.id}/agents`,
        headers: admin.headers,
        payload: { agent_type: 'ai_tag', phase: 'completion' },
      });
      assertError(agent, 409, 'conflict');
      const db = t.container.database.db;
      await db
        .insertInto('import_agents')
        .values({
          id: `${done.id}-agent`,
          tenant_id: tenant.tenantId,
          project_id: done.id,
          agent_type: 'ai_tag',
          phase: 'completion',
          batch_size: null,
          config: '{}',
          auto_approve: 0,
          created_at: Date.now(),
        })
        .execute();
      assert.equal(
        (await t.app.inject({ method: 'DELETE', url: `${BASE}/${done.id}`, headers: admin.headers })).statusCode,
        200,
      );
      for (const table of ['import_items', 'import_folders', 'import_agents'] as const) {
        const left = await db.selectFrom(table).select('project_id').where('project_id', '=', done.id).execute();
        assert.equal(left.length, 0, `${table} rows of the deleted project are gone`);
      }
      assert.equal(
        (await t.app.inject({ url: `/api/v1/documents/${item.document_id}`, headers: admin.headers })).statusCode,
        200,
      );
    });

    it('exports each native kind in the format asked for', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const tree = addTree(drive, [
        { path: 'Letter', content: 'Dear customer', mimeType: GOOGLE_DOC },
        { path: 'Deck', content: 'Slides text', mimeType: GOOGLE_SLIDES },
        { path: 'Sketch', mimeType: GOOGLE_DRAWING },
      ]);
      const from = drive.log.length;
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
        export_formats: { document: 'docx', presentation: 'pptx', drawing: 'png' },
      });
      const done = await scanAndImport(t, tenant.headers, project.id);
      assert.equal(
        done.status,
        'completed',
        JSON.stringify(await items(t, tenant.headers, project.id, '&status=failed')),
      );
      const exports = drive.log.slice(from).filter((r) => r.url.includes('/export?'));
      const asked = (id: string) =>
        decodeURIComponent(
          exports
            .find((r) => r.url.includes(id))!
            .url.split('mimeType=')[1]!
            .split('&')[0]!,
        );
      assert.equal(
        asked(tree.ids['Letter']!),
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      );
      assert.equal(
        asked(tree.ids['Deck']!),
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      );
      assert.equal(asked(tree.ids['Sketch']!), 'image/png');
      const docs = await Promise.all(
        (await items(t, tenant.headers, project.id)).map(async (i: Json) =>
          (await t.app.inject({ url: `/api/v1/documents/${i.document_id}`, headers: tenant.headers })).json(),
        ),
      );
      assert.deepEqual(docs.map((d: Json) => d.filename).sort(), ['Deck.pptx', 'Letter.docx', 'Sketch.png']);
    });
  },
  { worker: true, env: driveEnv(drive) },
);
