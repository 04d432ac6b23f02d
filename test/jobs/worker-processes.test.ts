import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import type { AnyJobPayloads } from '../../src/jobs/job-types.ts';
import { availableDialects, openTestDatabase } from '../support/databases.ts';
import { newQueue, startWorker, uniqueKind, waitFor, waitForState } from './helpers.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'worker-process.ts');

interface Child {
  process: ChildProcess;
  workerId: string;
  exited: Promise<unknown>;
}

/** Starts the fixture worker in its own Node process and waits until it is polling. */
async function spawnWorker(
  store: { url: string | null; dataDir: string },
  env: Record<string, string>,
): Promise<Child> {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, JOBS_DATABASE_URL: store.url ?? '', JOBS_DATA_DIR: store.dataDir, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = readline.createInterface({ input: child.stdout! });
  const ready = new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) resolve(line.slice(6));
    });
    child.on('exit', (code) => reject(new Error(`worker process exited early (${code})`)));
  });
  return { process: child, workerId: await ready, exited };
}

for (const dialect of await availableDialects()) {
  describe(`worker processes on ${dialect}`, () => {
    let t: Awaited<ReturnType<typeof openTestDatabase>>;
    let queue: JobQueue<AnyJobPayloads>;
    const children: Child[] = [];
    before(async () => {
      t = await openTestDatabase(dialect);
      queue = newQueue(t.database);
    });
    after(async () => {
      for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
      await Promise.all(children.map((c) => c.exited));
      await t.close();
    });

    it('runs a job again after its lease when the process running it is killed', async () => {
      const kind = uniqueKind('crash');
      // A lease long enough that a child starved of CPU on a loaded machine still renews it in time
      // (with 1 s, a starved child lost its own lease and ran the job a second time before the kill).
      const child = await spawnWorker(t.store, { JOBS_KIND: kind, JOBS_MODE: 'hang', JOBS_LEASE_MS: '3000' });
      children.push(child);
      const { id } = await queue.enqueue(t.database.db, kind, { survive: true });
      const running = await waitForState(queue, id, ['running']);
      assert.equal(running.lockedBy, child.workerId);
      assert.equal(running.attempts, 1);
      child.process.kill('SIGKILL');
      await child.exited;

      const payloads: unknown[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [{ kind, handler: async (job) => void payloads.push([job.payload, job.attempt]) }],
        {
          leaseMs: 1_000,
        },
      );
      try {
        const job = await waitForState(queue, id, ['completed']);
        assert.equal(job.attempts, 2);
        assert.equal(job.lockedBy, worker.id);
        assert.match(job.lastError ?? '', /lease expired/);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(payloads, [[{ survive: true }, 2]]);
    });

    it('a job whose process dies twice in a row is failed with process_died at the next claim, never run a third time', async () => {
      const kind = uniqueKind('poison');
      const { id } = await queue.enqueue(t.database.db, kind, { poison: true });
      for (const death of [1, 2]) {
        const child = await spawnWorker(t.store, { JOBS_KIND: kind, JOBS_MODE: 'hang', JOBS_LEASE_MS: '1000' });
        children.push(child);
        const running = await waitFor(async () => {
          const job = await queue.get(id);
          return job?.state === 'running' && job.lockedBy === child.workerId ? job : undefined;
        }, `run ${death} to start`);
        assert.equal(running.attempts, death);
        child.process.kill('SIGKILL'); // as the kernel's OOM killer would
        await child.exited;
        // The next worker's rescue finds the lease expired, counts the death and claims the job again.
      }
      const ran: unknown[] = [];
      const died: { id: string; error: string; payload: unknown }[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            handler: async (job) => void ran.push(job.payload),
            onProcessDied: async (_trx, job) => void died.push({ id: job.id, error: job.error, payload: job.payload }),
          },
        ],
        { leaseMs: 1_000 },
      );
      try {
        const job = await waitForState(queue, id, ['dead']);
        assert.match(job.lastError ?? '', /^process_died: the process running this job died 2 times in a row/);
        assert.equal(job.attempts, 2, 'the claim that found it is not an attempt');
        assert.deepEqual(ran, [], 'the handler never ran a third time');
        assert.deepEqual(
          died,
          [{ id, error: job.lastError, payload: { poison: true } }],
          'onProcessDied saw it, in the same transaction',
        );
      } finally {
        await worker.stop();
      }
    });

    it('a run that ends (fails normally) between two deaths resets the count: the job is retried', async () => {
      const kind = uniqueKind('survivor');
      const { id } = await queue.enqueue(t.database.db, kind, {});
      const child = await spawnWorker(t.store, { JOBS_KIND: kind, JOBS_MODE: 'hang', JOBS_LEASE_MS: '1000' });
      children.push(child);
      await waitForState(queue, id, ['running']);
      child.process.kill('SIGKILL');
      await child.exited;
      const attempts: number[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            backoff: { baseMs: 1, maxMs: 1 },
            handler: async (job) => {
              attempts.push(job.attempt);
              if (job.attempt === 2) throw new Error('an ordinary failure');
            },
          },
        ],
        { leaseMs: 1_000 },
      );
      try {
        const job = await waitForState(queue, id, ['completed']);
        assert.deepEqual(attempts, [2, 3]);
        assert.equal(job.attempts, 3);
      } finally {
        await worker.stop();
      }
    });

    it('two worker processes never run the same job (each runs exactly once)', async (testContext) => {
      const kind = uniqueKind('compete');
      const logs = [path.join(t.store.dataDir, 'runs-a.jsonl'), path.join(t.store.dataDir, 'runs-b.jsonl')];
      const pair = await Promise.all(
        logs.map((log) =>
          spawnWorker(t.store, { JOBS_KIND: kind, JOBS_MODE: 'record', JOBS_LOG: log, JOBS_CONCURRENCY: '8' }),
        ),
      );
      children.push(...pair);
      const total = 400;
      const ids: string[] = [];
      for (let i = 0; i < total; i += 50) {
        const batch = await queue.enqueueMany(
          t.database.db,
          Array.from({ length: 50 }, (_, j) => ({ kind, payload: i + j })),
        );
        ids.push(...batch.map((r) => r.id));
      }
      await waitFor(
        async () => {
          const counts = await queue.countsByKindAndState();
          return counts.find((c) => c.kind === kind && c.state === 'completed')?.count === total;
        },
        'all jobs to complete',
        20_000,
      );
      for (const c of pair) c.process.kill('SIGTERM');
      await Promise.all(pair.map((c) => c.exited));

      const runs = logs.flatMap((log) =>
        fs.existsSync(log)
          ? fs
              .readFileSync(log, 'utf8')
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as { id: string; worker: string })
          : [],
      );
      const perJob = new Map<string, number>();
      for (const run of runs) perJob.set(run.id, (perJob.get(run.id) ?? 0) + 1);
      assert.equal(runs.length, total, 'one run per job');
      assert.deepEqual([...perJob.keys()].sort(), [...ids].sort());
      assert.ok(
        [...perJob.values()].every((n) => n === 1),
        'no job ran twice',
      );
      for (const id of ids.slice(0, 20)) assert.equal((await queue.get(id))?.attempts, 1);
      const byWorker = new Map<string, number>();
      for (const run of runs) byWorker.set(run.worker, (byWorker.get(run.worker) ?? 0) + 1);
      // Not asserted (scheduling decides), but worth seeing when the test runs.
      testContext.diagnostic(`${dialect}: runs per worker process ${JSON.stringify(Object.fromEntries(byWorker))}`);
    });
  });
}
