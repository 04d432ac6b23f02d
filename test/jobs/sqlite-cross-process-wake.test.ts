import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { createContainer } from '../../src/container.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { defineModule } from '../../src/platform/module.ts';
import { MODULES } from '../../src/modules.ts';
import { createTestStore } from '../support/databases.ts';
import { waitFor } from './helpers.ts';

// The probe module declares its kind as every module does.
declare module '../../src/jobs/job-types.ts' {
  interface JobPayloads {
    'probe.run': { n: string };
  }
}

const ran: string[] = [];
const probeModule = defineModule({
  name: 'probe',
  setup: () => ({ jobs: [{ kind: 'probe.run', handler: async (job) => void ran.push(job.payload.n) }] }),
});

it('on SQLite a worker wakes for a job another connection enqueued, without waiting for its poll', async () => {
  const store = await createTestStore('sqlite');
  // A poll interval no test would wait for: only the write watcher can pick the job up in time.
  const env = {
    DATA_DIR: store.dataDir,
    ADMIN_API_KEY: 'wake-test-admin-key',
    LOG_LEVEL: 'silent',
    WORKER_POLL_INTERVAL_MS: '60000',
  };
  const producer = await createContainer(loadConfig(env), { modules: [...MODULES, probeModule] });
  const consumer = await createContainer(loadConfig(env), { modules: [...MODULES, probeModule] });
  await migrateToLatest(producer.database.db);
  const worker = consumer.createWorker({ concurrency: 1 });
  await worker.start();
  try {
    await new Promise((r) => setTimeout(r, 100)); // past the first tick at start
    await producer.jobs.enqueue(producer.database.db, 'probe.run', { n: 'first' });
    await waitFor(() => ran.includes('first'), 'the job enqueued by the other connection', 10_000);
    await producer.jobs.enqueue(producer.database.db, 'probe.run', { n: 'second' });
    await waitFor(() => ran.includes('second'), 'a second job', 10_000);
    assert.deepEqual(ran, ['first', 'second']);
  } finally {
    await worker.stop(2_000);
    await producer.close();
    await consumer.close();
    await store.drop();
  }
});
