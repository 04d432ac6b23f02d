import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { waitFor } from '../../jobs/helpers.ts';
import { DIALECTS, describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { startDriveServer } from '../../support/google-drive-server.ts';
import {
  action,
  addTree,
  BASE,
  createProject,
  credentials,
  driveEnv,
  type Json,
  items,
  spawnWorker,
  waitForStatus,
} from './helpers.ts';

const LEASE_MS = 1_500;
const FILES = 10;
const FILE_BYTES = 192 * 1024;

// A Drive server per dialect: the tests throttle theirs (slow transfers, slow listings) while the
// other dialect's suite runs beside them.
const drives = new Map(await Promise.all(DIALECTS.map(async (d) => [d, await startDriveServer()] as const)));
after(() => Promise.all([...drives.values()].map((d) => d.close())));

/** Distinct bytes per file (no two are duplicates of each other). */
function fileContent(i: number): string {
  const line = `file ${i}: ${createHash('sha256').update(String(i)).digest('hex')}\n`;
  return line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES);
}

/**
 * Issue 17: a worker process killed with SIGKILL while it streams a file from Drive into the
 * library leaves its lane's job running under a dead lease and the file held by that lane; a worker
 * started after the lease takes the lane over and the project completes, each file imported once.
 * The same for a scan killed half-way.
 */
describeEachDialect(
  'an import survives a killed worker',
  (ctx, dialect) => {
    const drive = drives.get(dialect)!;
    it('resumes after kill -9 mid-file: completes, every file imported exactly once, nothing half-written', async () => {
      const t = ctx();
      const db = t.container.database.db;
      const tenant = await createTenant(t);
      const contents = Array.from({ length: FILES }, (_, i) => fileContent(i));
      const tree = addTree(
        drive,
        contents.map((content, i) => ({ path: `Batch/file-${String(i).padStart(2, '0')}.txt`, content })),
      );
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });

      const child = spawnWorker(t, drive, LEASE_MS);
      // 16 KiB every 60 ms: a file takes about 0.7 s, so the kill finds one in the middle of its transfer.
      drive.slow = { chunkBytes: 16 * 1024, delayMs: 60 };
      let atKill: { imported: number; held: Json[] };
      try {
        assert.equal((await action(t, tenant.headers, project.id, 'scan')).statusCode, 202);
        await waitForStatus(t, tenant.headers, project.id, ['ready']);
        assert.equal((await action(t, tenant.headers, project.id, 'start')).statusCode, 202);
        atKill = await waitFor(
          async () => {
            if (drive.partialDownloads === 0) return undefined;
            const rows = await db
              .selectFrom('import_items')
              .select(['status', 'lane', 'source_file_id'])
              .where('project_id', '=', project.id)
              .execute();
            const imported = rows.filter((r) => r.status === 'imported').length;
            const held = rows.filter((r) => r.status === 'pending' && r.lane !== null);
            // A document id reserved (its orphan guard committed) with no document yet: the lane is
            // streaming that file's bytes into the store, with most of the transfer still to come.
            const count = async (table: 'jobs' | 'documents') => {
              let query = db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('tenant_id', '=', tenant.tenantId);
              if (table === 'jobs') query = query.where('kind', '=', 'documents.collect_orphan');
              return Number((await query.executeTakeFirstOrThrow()).n);
            };
            const streaming = (await count('jobs')) > (await count('documents'));
            return imported >= 2 && held.length > 0 && streaming ? { imported, held } : undefined;
          },
          `the child worker to import two files and be in the middle of another (${child.output()})`,
          60_000,
        );
      } finally {
        await child.kill();
      }
      drive.slow = null;

      const killed = (await t.app.inject({ url: `${BASE}/${project.id}/progress`, headers: tenant.headers })).json();
      assert.equal(killed.status, 'in_progress');
      assert.ok(killed.processed_items < FILES, 'the kill came before the import finished');
      const running = await db
        .selectFrom('jobs')
        .select(['id'])
        .where('kind', '=', 'imports.lane')
        .where('state', '=', 'running')
        .execute();
      assert.ok(running.length > 0, 'the dead worker left lane jobs running under its lease');

      const worker = t.container.createWorker({ concurrency: 2 });
      await worker.start();
      try {
        const done = await waitForStatus(t, tenant.headers, project.id, ['completed', 'completed_with_errors'], 60_000);
        assert.equal(
          done.status,
          'completed',
          JSON.stringify(await items(t, tenant.headers, project.id, '&status=failed')),
        );
        assert.equal(done.total_items, FILES);
        assert.equal(done.processed_items, FILES);
        assert.equal(done.failed_items, 0);
        assert.equal(done.skipped_items, 0, 'no file was taken for a duplicate of its own dead attempt');

        // Progress counts each file once.
        const progress = (
          await t.app.inject({ url: `${BASE}/${project.id}/progress`, headers: tenant.headers })
        ).json();
        assert.equal(progress.processed_items, FILES);
        assert.equal(progress.pending_items, 0);
        assert.equal(progress.progress_percent, 100);
        assert.equal(progress.total_bytes, FILES * FILE_BYTES);
        assert.equal(progress.migrated_bytes, FILES * FILE_BYTES);

        // Every file once: one item each, imported, with its own document; the dead attempt is not a try.
        const all = await items(t, tenant.headers, project.id);
        assert.equal(all.length, FILES);
        assert.deepEqual(
          all.map((i: Json) => i.status),
          Array(FILES).fill('imported'),
        );
        assert.deepEqual(
          all.map((i: Json) => i.attempts),
          Array(FILES).fill(1),
        );
        assert.equal(new Set(all.map((i: Json) => i.document_id)).size, FILES);
        assert.equal(new Set(all.map((i: Json) => i.source_file_id)).size, FILES);
        for (const held of atKill.held)
          assert.ok(all.some((i: Json) => i.source_file_id === held.source_file_id && i.status === 'imported'));

        // One document per file, whole: the bytes in the store are the file's bytes.
        const docs = await db
          .selectFrom('documents')
          .select(['id', 'original_filename', 'sha256', 'file_size', 'storage_key'])
          .where('tenant_id', '=', tenant.tenantId)
          .execute();
        assert.equal(docs.length, FILES, 'no duplicate document');
        assert.equal(new Set(docs.map((d) => d.original_filename)).size, FILES);
        const expected = new Set(contents.map((c) => createHash('sha256').update(c).digest('hex')));
        assert.deepEqual(new Set(docs.map((d) => d.sha256)), expected);
        for (const d of docs) {
          assert.equal(Number(d.file_size), FILE_BYTES);
          const stored = fs.readFileSync(path.join(t.store.dataDir, 'blobs', d.storage_key));
          assert.equal(
            createHash('sha256').update(stored).digest('hex'),
            d.sha256,
            `${d.original_filename} is stored whole`,
          );
        }
        const uploaded = await db
          .selectFrom('events')
          .select('data')
          .where('tenant_id', '=', tenant.tenantId)
          .where('name', '=', 'document.uploaded')
          .execute();
        assert.equal(uploaded.length, FILES, 'one document.uploaded event per file');

        // The dead attempt committed nothing; whatever bytes it left are covered by an orphan guard,
        // which removes them when it runs.
        const documentDir = path.join(t.store.dataDir, 'blobs', 'tenants', tenant.tenantId, 'documents');
        const ids = new Set(docs.map((d) => d.id));
        const strays = fs.readdirSync(documentDir).filter((name) => !ids.has(name));
        const guards = await db
          .selectFrom('jobs')
          .select(['payload', 'state'])
          .where('kind', '=', 'documents.collect_orphan')
          .where('tenant_id', '=', tenant.tenantId)
          .execute();
        const guarded = new Set(
          guards.filter((g) => g.state === 'available').map((g) => JSON.parse(g.payload).documentId as string),
        );
        for (const stray of strays) assert.ok(guarded.has(stray), `stray bytes ${stray} have an orphan guard`);
        assert.ok(guards.length > FILES, 'the dead attempt reserved a document id of its own, guarded');
        const collect = t.container.jobDefinitions().find((d) => d.kind === 'documents.collect_orphan')!;
        for (const g of guards) {
          const payload = JSON.parse(g.payload);
          await collect.handler({
            id: 'j',
            kind: collect.kind,
            payload,
            attempt: 1,
            maxAttempts: 1,
            tenantId: tenant.tenantId,
            priority: 0,
            signal: new AbortController().signal,
            completeIn: async () => {},
          });
        }
        assert.deepEqual(new Set(fs.readdirSync(documentDir)), ids, 'only the imported documents’ bytes remain');

        // The lane job the worker died in ran again after its lease.
        const lanes = await db
          .selectFrom('jobs')
          .select(['state', 'attempts', 'last_error'])
          .where('kind', '=', 'imports.lane')
          .where(
            'id',
            'in',
            running.map((r) => r.id),
          )
          .execute();
        assert.ok(
          lanes.some((j) => Number(j.attempts) >= 2 && /lease expired/.test(String(j.last_error))),
          JSON.stringify(lanes),
        );
      } finally {
        await worker.stop(5_000);
      }
    });

    it('a scan killed half-way is taken over after its lease and records every file once', async () => {
      const t = ctx();
      const db = t.container.database.db;
      const tenant = await createTenant(t);
      const folders = 30;
      const perFolder = 5;
      const tree = addTree(
        drive,
        Array.from({ length: folders * perFolder }, (_, i) => ({
          path: `Folder ${String(Math.floor(i / perFolder)).padStart(2, '0')}/f-${i}.txt`,
          content: `scan ${i}`,
        })),
      );
      const project = await createProject(t, tenant.headers, {
        folder_ids: [tree.rootId],
        credentials: credentials(drive),
        enable_ai: false,
      });
      const itemCount = async () =>
        Number(
          (
            await db
              .selectFrom('import_items')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('project_id', '=', project.id)
              .executeTakeFirstOrThrow()
          ).n,
        );

      const child = spawnWorker(t, drive, LEASE_MS);
      drive.listDelayMs = 150;
      try {
        assert.equal((await action(t, tenant.headers, project.id, 'scan')).statusCode, 202);
        await waitFor(
          async () => (await itemCount()) >= 5 * perFolder,
          `the child worker to scan five folders (${child.output()})`,
          60_000,
        );
      } finally {
        await child.kill();
      }
      drive.listDelayMs = 0;
      const partial = await itemCount();
      assert.ok(partial < folders * perFolder, 'the kill came before the scan finished');
      assert.equal(
        (await t.app.inject({ url: `${BASE}/${project.id}`, headers: tenant.headers })).json().status,
        'scanning',
      );

      const worker = t.container.createWorker({ concurrency: 2 });
      await worker.start();
      try {
        const ready = await waitForStatus(t, tenant.headers, project.id, ['ready', 'failed'], 60_000);
        assert.equal(ready.status, 'ready', ready.error);
        assert.equal(ready.total_items, folders * perFolder);
        const rows = await db
          .selectFrom('import_items')
          .select(['source_file_id', 'path'])
          .where('project_id', '=', project.id)
          .execute();
        assert.equal(new Set(rows.map((r) => r.source_file_id)).size, rows.length, 'no file recorded twice');
        const mapped = await db
          .selectFrom('import_folders')
          .select('source_folder_id')
          .where('project_id', '=', project.id)
          .execute();
        assert.equal(mapped.length, folders + 1, 'each folder once');
        const scan = await db
          .selectFrom('jobs')
          .select(['state', 'attempts', 'last_error'])
          .where('kind', '=', 'imports.scan')
          .where('tenant_id', '=', tenant.tenantId)
          .executeTakeFirstOrThrow();
        assert.equal(scan.state, 'completed');
        assert.ok(Number(scan.attempts) >= 2 && /lease expired/.test(String(scan.last_error)), JSON.stringify(scan));
      } finally {
        await worker.stop(5_000);
      }
    });
  },
  // The dialects side by side: the tests wait on throttled transfers, a worker process and its lease.
  {
    env: { JOB_LEASE_MS: String(LEASE_MS) },
    dialectEnv: (dialect) => driveEnv(drives.get(dialect)!),
    concurrentDialects: true,
  },
);
