import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { uploadOk } from '../documents/helpers.ts';
import { textPng } from '../../fixtures/extraction/media.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { ADMIN_KEY, describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/main.ts');
const LEASE_MS = 1_500;

/**
 * A worker process killed with SIGKILL in the middle of a document's pipeline (OCR running) leaves
 * a job whose lease runs out; a worker started afterwards takes it over and the document finishes,
 * with each step's effect written once.
 */
describeEachDialect(
  'processing survives a killed worker',
  (ctx) => {
    it('resumes after kill -9 mid-extraction and completes exactly once', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const scan = textPng(
        ['Quarterly maintenance report', 'Boiler inspected by Oscar Lind on 2026-02-11', 'No defects were found'],
        {
          width: 2400,
          height: 1400,
          fontPx: 64,
        },
      );
      const id = await uploadOk(t, tenant.headers, { filename: 'scan.png', content: scan });

      let out = '';
      const child: ChildProcess = spawn(process.execPath, [MAIN, 'worker'], {
        env: {
          ...process.env,
          DATA_DIR: t.store.dataDir,
          ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
          ADMIN_API_KEY: ADMIN_KEY,
          JOB_LEASE_MS: String(LEASE_MS),
          WORKER_POLL_INTERVAL_MS: '50',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (d) => (out += String(d)));
      child.stderr?.on('data', (d) => (out += String(d)));
      const db = t.container.database.db;
      try {
        await waitFor(
          async () =>
            (await db
              .selectFrom('jobs')
              .select('state')
              .where('kind', '=', 'processing.extract')
              .where('state', '=', 'running')
              .executeTakeFirst()) ?? false,
          `the child worker to claim the extraction (${out})`,
          20_000,
        );
      } finally {
        child.kill('SIGKILL');
      }
      await new Promise((resolve) => child.once('exit', resolve));
      const before = await t.container.database.db
        .selectFrom('documents')
        .select(['status'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(before.status, 'processing', 'the kill came before extraction finished');

      const worker = t.container.createWorker({ concurrency: 2 });
      await worker.start();
      try {
        const doc = await waitFor(
          async () => {
            const d = (await t.app.inject({ url: `/api/v1/documents/${id}`, headers: tenant.headers })).json();
            return d.status === 'completed' && d.ai_status === 'completed' ? d : undefined;
          },
          'the document to finish after the restart',
          60_000,
        );
        assert.equal(doc.metadata.ocr, true);
        assert.ok(doc.entities.people.includes('Oscar Lind'), JSON.stringify(doc.entities));
        const content = (
          await t.app.inject({ url: `/api/v1/documents/${id}/content`, headers: tenant.headers })
        ).json();
        assert.match(content.content, /maintenance report/i);
        const processed = await db
          .selectFrom('events')
          .select('data')
          .where('tenant_id', '=', tenant.tenantId)
          .where('name', '=', 'document.processed')
          .execute();
        assert.equal(processed.filter((e) => JSON.parse(e.data).document_id === id).length, 1);
        const chunkRows = await db
          .selectFrom('document_chunks')
          .select('chunk_index')
          .where('document_id', '=', id)
          .execute();
        assert.equal(new Set(chunkRows.map((c) => c.chunk_index)).size, chunkRows.length);
        const job = await db
          .selectFrom('jobs')
          .select(['state', 'attempts'])
          .where('kind', '=', 'processing.extract')
          .executeTakeFirstOrThrow();
        assert.equal(job.state, 'completed');
        assert.equal(Number(job.attempts), 2, 'one run died with the worker, the second finished');
      } finally {
        await worker.stop(5_000);
      }
    });
  },
  { env: { JOB_LEASE_MS: String(LEASE_MS) } },
);
