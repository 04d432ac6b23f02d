import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { digestOf } from '../../../src/providers/blobs/hashing-counter.ts';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { ADMIN_KEY, describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { migrateOk, s3WithBuckets, sha256, statusView, storageEnv, textFile, waitForStatus } from './helpers.ts';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/main.ts');
const FILES = 60;
const dedicatedS3 = await s3WithBuckets('dedicated');
after(() => dedicatedS3.close());
const env = storageEnv(dedicatedS3, { STORAGE_MIGRATION_CONCURRENCY: '1', RATE_LIMIT_ENABLED: 'false' });

/**
 * A worker process killed with SIGKILL in the middle of the copy leaves a step job whose lease
 * runs out; a worker started afterwards resumes from the database: every file arrives once,
 * verified, and the counters count each file once.
 */
describeEachDialect(
  'storage migration survives a killed worker',
  (ctx) => {
    it('resumes after kill -9 mid-copy without losing, duplicating or corrupting a file', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const files = Array.from({ length: FILES }, (_, i) => textFile(i, 64 * 1024 + i));
      const ids: string[] = [];
      for (const [i, content] of files.entries())
        ids.push(await uploadOk(t, tenant.headers, { filename: `f${i}.txt`, content }));
      const record = await migrateOk(t, tenant.tenantId, 'dedicated');

      let out = '';
      const child: ChildProcess = spawn(process.execPath, [MAIN, 'worker'], {
        env: {
          ...process.env,
          ...env,
          DATA_DIR: t.store.dataDir,
          ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
          ADMIN_API_KEY: ADMIN_KEY,
          JOB_LEASE_MS: '1500',
          WORKER_POLL_INTERVAL_MS: '50',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (d) => (out += String(d)));
      child.stderr?.on('data', (d) => (out += String(d)));
      try {
        await waitFor(
          async () => (await statusView(t, tenant.tenantId)).migrated_files >= 3 || false,
          `the child to copy some files (${out})`,
          30_000,
        );
      } finally {
        child.kill('SIGKILL');
      }
      await new Promise((resolve) => child.once('exit', resolve));
      const killed = await statusView(t, tenant.tenantId);
      assert.equal(killed.status, 'in_progress', 'the kill came mid-run');
      assert.ok(killed.migrated_files < FILES, `the kill came before the copy finished (${killed.migrated_files})`);

      const worker = t.container.createWorker({ concurrency: 2 });
      worker.start();
      try {
        const done = await waitForStatus(t, tenant.tenantId, ['completed', 'completed_with_errors', 'failed'], 60_000);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.equal(done.migrated_files, FILES, 'each file counted once');
        assert.equal(
          done.migrated_bytes,
          files.reduce((n, f) => n + f.length, 0),
        );
        assert.equal(done.id, record.id);
      } finally {
        await worker.stop(2_000);
      }
      const dedicated = await t.container.modules.use('storageProviders').storeFor(tenant.tenantId, 'dedicated');
      for (const [i, id] of ids.entries()) {
        const digest = await digestOf(await dedicated.get(`tenants/${tenant.tenantId}/documents/${id}`));
        assert.equal(digest.sha256, sha256(files[i]!), `document ${i} arrived intact`);
      }
      const keys = dedicatedS3.keys('dedicated').filter((k) => k.includes(`${tenant.tenantId}/documents/`));
      assert.equal(keys.length, FILES, 'no file lost or duplicated');
    });
  },
  { env },
);
