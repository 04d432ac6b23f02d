import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { jobsSettled } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant } from '../../support/fixtures.ts';
import { GOOGLE_DOC, startDriveServer } from '../../support/google-drive-server.ts';
import { action, addTree, createProject, type Json, credentials, driveEnv, items, waitForStatus } from './helpers.ts';

const drive = await startDriveServer();
after(() => drive.close());

describeEachDialect(
  'import projects: retries, rate limits, token refresh, pause/resume/cancel',
  (ctx) => {
    it('retries rate-limited files, fails what cannot succeed, and refreshes an expired token', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const tree = addTree(drive, [
        { path: 'limited.txt', content: 'rate limited at first' },
        { path: 'flaky.txt', content: 'server errors at first' },
        { path: 'broken.txt', content: 'always failing' },
        { path: 'gone.txt', content: 'vanishes after the scan' },
        { path: 'Huge doc', mimeType: GOOGLE_DOC, exportSize: 11 * 1024 * 1024 },
      ]);
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });
      assert.equal((await action(t, tenant.headers, project.id, 'scan')).statusCode, 202);
      await waitForStatus(t, tenant.headers, project.id, ['ready']);
      drive.files.delete(tree.ids['gone.txt']!);
      drive.failures.push(
        { match: tree.ids['limited.txt']!, status: 429, retryAfter: '0', times: 1 },
        { match: tree.ids['flaky.txt']!, status: 403, reason: 'rateLimitExceeded', times: 1 },
        { match: tree.ids['broken.txt']!, status: 500, times: 100 },
      );
      drive.expireTokens();
      const refreshesBefore = drive.log.filter((r) => r.url === '/token').length;
      assert.equal((await action(t, tenant.headers, project.id, 'start')).statusCode, 202);
      const done = await waitForStatus(t, tenant.headers, project.id, ['completed', 'completed_with_errors']);
      assert.equal(done.status, 'completed_with_errors');
      assert.equal(done.processed_items, 2);
      assert.equal(done.failed_items, 3);
      const byName = new Map<string, Json>((await items(t, tenant.headers, project.id)).map((i: Json) => [i.name, i]));
      assert.equal(byName.get('limited.txt').status, 'imported');
      assert.equal(byName.get('limited.txt').attempts, 2);
      assert.equal(byName.get('flaky.txt').status, 'imported');
      assert.equal(byName.get('broken.txt').status, 'failed');
      assert.equal(byName.get('broken.txt').attempts, 4, 'one try and three retries');
      assert.equal(byName.get('gone.txt').status, 'failed');
      assert.equal(byName.get('gone.txt').attempts, 1, 'a vanished file is not retried');
      assert.match(byName.get('gone.txt').error, /no longer exists/);
      assert.match(byName.get('Huge doc').error, /10 MB/);
      assert.ok(
        drive.log.filter((r) => r.url === '/token').length > refreshesBefore,
        'the expired token was refreshed',
      );
      // The refreshed token is kept (sealed) for the next run.
      const row = await t.container.database.db
        .selectFrom('import_projects')
        .select('credentials')
        .where('id', '=', project.id)
        .executeTakeFirstOrThrow();
      assert.doesNotMatch(row.credentials ?? '', /ya29/);
    });

    it('pauses after the current files, resumes where it stopped, and cancels keeping what was imported', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const files = Array.from({ length: 6 }, (_, i) => ({ path: `file-${i}.txt`, content: `content number ${i}` }));
      const tree = addTree(drive, files);
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });
      assert.equal((await action(t, tenant.headers, project.id, 'scan')).statusCode, 202);
      await waitForStatus(t, tenant.headers, project.id, ['ready']);
      let release!: () => void;
      drive.hold = new Promise<void>((resolve) => (release = resolve));
      assert.equal((await action(t, tenant.headers, project.id, 'start')).statusCode, 202);
      const paused = await action(t, tenant.headers, project.id, 'pause');
      assert.equal(paused.statusCode, 202, paused.body);
      assert.equal(paused.json().status, 'paused');
      assertError(await action(t, tenant.headers, project.id, 'start'), 409, 'conflict');
      assertError(await action(t, tenant.headers, project.id, 'pause'), 409, 'conflict');
      drive.hold = null;
      release();
      // The lanes finish the files they held (at most one each) and stop: their jobs end.
      await jobsSettled(t.container.database);
      const during = (
        await t.app.inject({ url: `/api/v1/migrations/projects/${project.id}/progress`, headers: tenant.headers })
      ).json();
      assert.equal(during.status, 'paused');
      assert.ok(during.processed_items <= 2, `${during.processed_items} imported while paused`);
      assert.ok(during.pending_items >= 4);
      assert.equal((await action(t, tenant.headers, project.id, 'resume')).statusCode, 202);
      const done = await waitForStatus(t, tenant.headers, project.id, ['completed']);
      assert.equal(done.processed_items, 6);

      // Cancel: another project, held mid-file, cancelled; what was imported stays.
      const tree2 = addTree(
        drive,
        files.map((f) => ({ ...f, content: `${f.content} (second)` })),
      );
      const second = await createProject(t, tenant.headers, {
        folder_ids: [tree2.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });
      assert.equal((await action(t, tenant.headers, second.id, 'scan')).statusCode, 202);
      await waitForStatus(t, tenant.headers, second.id, ['ready']);
      drive.hold = new Promise<void>((resolve) => (release = resolve));
      await action(t, tenant.headers, second.id, 'start');
      const cancelled = await action(t, tenant.headers, second.id, 'cancel');
      assert.equal(cancelled.json().status, 'cancelled');
      drive.hold = null;
      release();
      await jobsSettled(t.container.database);
      const after = (
        await t.app.inject({ url: `/api/v1/migrations/projects/${second.id}`, headers: tenant.headers })
      ).json();
      assert.equal(after.status, 'cancelled');
      assert.ok(after.processed_items < 6);
      const imported = await items(t, tenant.headers, second.id, '&status=imported');
      for (const item of imported)
        assert.equal(
          (await t.app.inject({ url: `/api/v1/documents/${item.document_id}`, headers: tenant.headers })).statusCode,
          200,
        );
      assertError(await action(t, tenant.headers, second.id, 'resume'), 409, 'conflict');
      assert.equal(
        (
          await t.app.inject({
            method: 'DELETE',
            url: `/api/v1/migrations/projects/${second.id}`,
            headers: tenant.headers,
          })
        ).statusCode,
        200,
      );
    });
  },
  { worker: true, env: driveEnv(drive) },
);
