import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import { type AnyJobPayloads, JobLostError, type JobOutcome, PermanentJobError } from '../../src/jobs/job-types.ts';
import { runWorker } from '../../src/jobs/run-worker.ts';
import { availableDialects, openTestDatabase } from '../support/databases.ts';
import { newQueue, startWorker, uniqueKind, waitFor, waitForState } from './helpers.ts';

for (const dialect of await availableDialects()) {
  describe(`Worker on ${dialect}`, () => {
    let t: Awaited<ReturnType<typeof openTestDatabase>>;
    let queue: JobQueue<AnyJobPayloads>;
    before(async () => {
      t = await openTestDatabase(dialect);
      queue = newQueue(t.database);
    });
    after(() => t.close());

    it('runs an enqueued job once, with its payload, and reports the outcome', async () => {
      const kind = uniqueKind('run');
      const seen: unknown[] = [];
      const outcomes: [string, JobOutcome][] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [{ kind, handler: async (job) => void seen.push([job.payload, job.attempt, job.tenantId]) }],
        {
          onJobFinished: (k, o) => outcomes.push([k, o]),
        },
      );
      try {
        const { id } = await queue.enqueue(t.database.db, kind, { hello: 'world' }, { tenantId: 'ten' });
        const job = await waitForState(queue, id, ['completed']);
        assert.equal(job.attempts, 1);
        assert.equal(job.lockedBy, worker.id);
        assert.ok(job.finishedAt! >= job.createdAt);
        await waitFor(() => outcomes.length === 1, 'the outcome callback');
      } finally {
        await worker.stop();
      }
      assert.deepEqual(seen, [[{ hello: 'world' }, 1, 'ten']]);
      assert.deepEqual(outcomes, [[kind, 'completed']]);
    });

    it('retries with backoff: the failure is kept and the next run is scheduled within the cap', async () => {
      const kind = uniqueKind('backoff');
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            maxAttempts: 3,
            backoff: { baseMs: 60_000, maxMs: 600_000 },
            handler: async () => {
              throw new Error('flaky upstream');
            },
          },
        ],
        { random: () => 0.5 },
      );
      try {
        const before = Date.now();
        const { id } = await queue.enqueue(t.database.db, kind, null);
        const job = await waitFor(async () => {
          const j = await queue.get(id);
          return j?.state === 'available' && j.attempts === 1 ? j : undefined;
        }, 'the first failure');
        assert.match(job.lastError ?? '', /flaky upstream/);
        // Full jitter pinned at 0.5 of min(600 s, 60 s * 2^0).
        assert.ok(
          job.runAt >= before + 30_000 && job.runAt <= Date.now() + 30_000,
          `run_at ${job.runAt - before} ms after enqueue`,
        );
      } finally {
        await worker.stop();
      }
    });

    it('retries until max attempts, then keeps the job as dead with the last error', async () => {
      const kind = uniqueKind('dead');
      const attempts: number[] = [];
      const outcomes: JobOutcome[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            maxAttempts: 3,
            backoff: { baseMs: 5, maxMs: 20 },
            handler: async (job) => {
              attempts.push(job.attempt);
              throw new Error(`boom ${job.attempt}`);
            },
          },
        ],
        { onJobFinished: (_k, o) => outcomes.push(o) },
      );
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        const job = await waitForState(queue, id, ['dead']);
        assert.equal(job.attempts, 3);
        assert.match(job.lastError ?? '', /boom 3/);
        assert.ok(job.finishedAt);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.deepEqual(outcomes, ['retried', 'retried', 'dead']);
    });

    it('keeps a job as dead at once on PermanentJobError', async () => {
      const kind = uniqueKind('permanent');
      let runs = 0;
      const worker = await startWorker(t.database, queue, [
        {
          kind,
          maxAttempts: 5,
          handler: async () => {
            runs++;
            throw new PermanentJobError('document is gone');
          },
        },
      ]);
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        const job = await waitForState(queue, id, ['dead']);
        assert.equal(job.attempts, 1);
        assert.match(job.lastError ?? '', /PermanentJobError: document is gone/);
      } finally {
        await worker.stop();
      }
      assert.equal(runs, 1);
    });

    it('fails a run that exceeds its timeout, aborting its signal', async () => {
      const kind = uniqueKind('timeout');
      let aborted = false;
      const worker = await startWorker(t.database, queue, [
        {
          kind,
          maxAttempts: 1,
          timeoutMs: 50,
          handler: (job) =>
            new Promise((_, reject) =>
              job.signal.addEventListener('abort', () => {
                aborted = true;
                reject(job.signal.reason);
              }),
            ),
        },
      ]);
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        const job = await waitForState(queue, id, ['dead']);
        assert.match(job.lastError ?? '', /timed out after 50 ms/);
      } finally {
        await worker.stop();
      }
      assert.equal(aborted, true);
    });

    it('does not start a job before its run_at', async () => {
      const kind = uniqueKind('delay');
      let startedAt = 0;
      const worker = await startWorker(t.database, queue, [
        {
          kind,
          handler: async () => {
            startedAt = Date.now();
          },
        },
      ]);
      try {
        const runAt = Date.now() + 300;
        const { id } = await queue.enqueue(t.database.db, kind, null, { runAt });
        assert.equal((await queue.get(id))?.state, 'available');
        await waitForState(queue, id, ['completed']);
        assert.ok(startedAt >= runAt, `started ${runAt - startedAt} ms early`);
      } finally {
        await worker.stop();
      }
    });

    it('runs higher priority (lower number) first', async () => {
      const kind = uniqueKind('priority');
      const order: number[] = [];
      const ids = [];
      for (const priority of [5, 1, 3]) ids.push((await queue.enqueue(t.database.db, kind, priority, { priority })).id);
      const worker = await startWorker(t.database, queue, [
        { kind, concurrency: 1, handler: async (job) => void order.push(job.payload as number) },
      ]);
      try {
        for (const id of ids) await waitForState(queue, id, ['completed']);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(order, [1, 3, 5]);
    });

    it('never exceeds a kind’s concurrency, while other kinds still run', async () => {
      const limited = uniqueKind('limited');
      const free = uniqueKind('free');
      let active = 0;
      let peak = 0;
      let freeRan = 0;
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind: limited,
            concurrency: 2,
            handler: async () => {
              active++;
              peak = Math.max(peak, active);
              await new Promise((r) => setTimeout(r, 5));
              active--;
            },
          },
          { kind: free, handler: async () => void freeRan++ },
        ],
        { concurrency: 8 },
      );
      try {
        const jobs = await queue.enqueueMany(t.database.db, [
          ...Array.from({ length: 30 }, (_, i) => ({ kind: limited, payload: i })),
          ...Array.from({ length: 10 }, (_, i) => ({ kind: free, payload: i })),
        ]);
        for (const { id } of jobs) await waitForState(queue, id, ['completed']);
      } finally {
        await worker.stop();
      }
      assert.ok(peak <= 2, `peak concurrency ${peak}`);
      assert.ok(peak >= 1);
      assert.equal(freeRan, 10);
    });

    it('graceful stop releases a long job, which another worker then runs at once', async () => {
      const kind = uniqueKind('release');
      let firstAborted = false;
      const first = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            handler: (job) =>
              new Promise((_, reject) =>
                job.signal.addEventListener('abort', () => {
                  firstAborted = true;
                  reject(job.signal.reason);
                }),
              ),
          },
        ],
        { leaseMs: 60_000 },
      );
      const { id } = await queue.enqueue(t.database.db, kind, null);
      await waitForState(queue, id, ['running']);
      const outcomes: JobOutcome[] = [];
      const ranBy: string[] = [];
      const second = await startWorker(t.database, queue, [{ kind, handler: async () => void ranBy.push('second') }], {
        leaseMs: 60_000,
        onJobFinished: (_k, o) => outcomes.push(o),
      });
      try {
        await first.stop(50);
        assert.equal(firstAborted, true);
        // The lease was 60 s: only the release (not lease expiry) lets the second worker run it now.
        const job = await waitForState(queue, id, ['completed']);
        assert.equal(job.attempts, 1, 'the interrupted attempt is not counted');
        assert.equal(job.lockedBy, second.id);
      } finally {
        await second.stop();
      }
      assert.deepEqual(ranBy, ['second']);
      assert.deepEqual(outcomes, ['completed']);
    });

    it('stop waits for running jobs that finish within the timeout', async () => {
      const kind = uniqueKind('drain');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const worker = await runWorker({
        database: t.database,
        queue,
        definitions: [{ kind, handler: () => gate }],
        concurrency: 2,
        pollIntervalMs: 50,
        leaseMs: 5_000,
      });
      const { id } = await queue.enqueue(t.database.db, kind, null);
      await waitForState(queue, id, ['running']);
      const stopped = worker.stop(10_000);
      setTimeout(release, 20);
      await stopped;
      assert.equal((await queue.get(id))?.state, 'completed');
    });

    it('heartbeats keep a run longer than its lease from being taken over', async () => {
      const kind = uniqueKind('heartbeat');
      let runs = 0;
      // Runs 1.3 s on a 0.9 s lease (heartbeat every 0.3 s), with a second worker rescuing expired leases.
      const definition = {
        kind,
        timeoutMs: 10_000,
        handler: async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 1_300));
        },
      };
      const a = await startWorker(t.database, queue, [definition], { leaseMs: 900 });
      const b = await startWorker(t.database, queue, [definition], { leaseMs: 900 });
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        const job = await waitForState(queue, id, ['completed']);
        assert.equal(job.attempts, 1);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
      assert.equal(runs, 1);
    });

    it('aborts a running job that is cancelled (noticed at the next heartbeat)', async () => {
      const kind = uniqueKind('cancel-running');
      let reason: unknown;
      const outcomes: JobOutcome[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            handler: (job) =>
              new Promise((_, reject) =>
                job.signal.addEventListener('abort', () => {
                  reason = job.signal.reason;
                  reject(reason);
                }),
              ),
          },
        ],
        { leaseMs: 300, onJobFinished: (_k, o) => outcomes.push(o) },
      );
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        await waitForState(queue, id, ['running']);
        assert.equal(await queue.cancel(id), true);
        await waitFor(() => reason !== undefined, 'the abort');
        assert.equal((await queue.get(id))?.state, 'cancelled');
        assert.equal(worker.activeCount, 0);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(outcomes, ['lost']);
    });

    it('completeIn ends the job in the handler’s transaction, together with its work', async () => {
      const kind = uniqueKind('inline');
      const next = uniqueKind('inline-next');
      let followUp = '';
      const outcomes: JobOutcome[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            handler: async (job) => {
              await t.database.db.transaction().execute(async (trx) => {
                followUp = (await queue.enqueue(trx, next, { from: job.id })).id;
                await job.completeIn(trx);
                // Inside the transaction the job is already completed: one commit carries both.
                assert.equal((await queue.get(job.id, trx))?.state, 'completed');
              });
            },
          },
        ],
        { onJobFinished: (_k, o) => outcomes.push(o) },
      );
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        const job = await waitForState(queue, id, ['completed']);
        assert.equal(job.attempts, 1);
        assert.equal((await queue.get(followUp))?.state, 'available');
        await waitFor(() => outcomes.length === 1, 'the outcome callback');
      } finally {
        await worker.stop();
      }
      assert.deepEqual(outcomes, ['completed']);
    });

    it('completeIn refuses a run that no longer holds its job: its transaction rolls back', async () => {
      const kind = uniqueKind('inline-lost');
      const next = uniqueKind('inline-lost-next');
      let followUp = '';
      let thrown: unknown;
      const outcomes: JobOutcome[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            handler: async (job) => {
              // The job is taken away mid-run (as when its lease expired and another worker claimed it).
              await queue.cancel(job.id);
              try {
                await t.database.db.transaction().execute(async (trx) => {
                  followUp = (await queue.enqueue(trx, next, null)).id;
                  await job.completeIn(trx);
                });
              } catch (error) {
                thrown = error;
                throw error;
              }
            },
          },
        ],
        { leaseMs: 60_000, onJobFinished: (_k, o) => outcomes.push(o) },
      );
      try {
        const { id } = await queue.enqueue(t.database.db, kind, null);
        await waitFor(() => outcomes.length === 1, 'the outcome callback');
        assert.ok(thrown instanceof JobLostError, `threw ${String(thrown)}`);
        assert.equal((await queue.get(id))?.state, 'cancelled');
        assert.equal(await queue.get(followUp), null, 'the follow-up enqueued in the rolled-back transaction is gone');
      } finally {
        await worker.stop();
      }
      assert.deepEqual(outcomes, ['lost']);
    });
  });
}
