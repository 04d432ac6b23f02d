import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backoffDelay } from '../../src/jobs/backoff.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { claimJobs } from '../../src/jobs/jobs.repository.ts';
import type { AnyJobPayloads } from '../../src/jobs/job-types.ts';
import { availableDialects, openTestDatabase } from '../support/databases.ts';
import { newQueue, startWorker, uniqueKind, waitForState } from './helpers.ts';

describe('backoffDelay', () => {
  it('is full jitter under an exponential cap', () => {
    const top = () => 0.999999;
    assert.equal(
      backoffDelay(1, { baseMs: 100, maxMs: 10_000 }, () => 0),
      0,
    );
    assert.equal(backoffDelay(1, { baseMs: 100, maxMs: 10_000 }, top), 99);
    assert.equal(backoffDelay(3, { baseMs: 100, maxMs: 10_000 }, top), 399);
    assert.equal(backoffDelay(30, { baseMs: 100, maxMs: 10_000 }, top), 9_999);
    assert.equal(
      backoffDelay(2, undefined, () => 0.5),
      1_000,
    );
  });
});

for (const dialect of await availableDialects()) {
  describe(`JobQueue on ${dialect}`, () => {
    let t: Awaited<ReturnType<typeof openTestDatabase>>;
    let queue: JobQueue<AnyJobPayloads>;
    before(async () => {
      t = await openTestDatabase(dialect);
      queue = newQueue(t.database);
    });
    after(() => t.close());

    it('enqueues a job with its options and defaults', async () => {
      const kind = uniqueKind('enqueue');
      const runAt = Date.now() + 60_000;
      const { id, duplicate } = await queue.enqueue(
        t.database.db,
        kind,
        { a: 1 },
        { runAt, priority: 3, tenantId: 't1' },
      );
      assert.equal(duplicate, false);
      const job = await queue.get(id);
      assert.ok(job);
      assert.deepEqual(
        {
          kind: job.kind,
          payload: job.payload,
          state: job.state,
          priority: job.priority,
          runAt: job.runAt,
          attempts: job.attempts,
          maxAttempts: job.maxAttempts,
          tenantId: job.tenantId,
        },
        {
          kind,
          payload: { a: 1 },
          state: 'available',
          priority: 3,
          runAt,
          attempts: 0,
          maxAttempts: 5,
          tenantId: 't1',
        },
      );
      assert.equal(await queue.get('00000000-0000-7000-8000-000000000000'), null);
    });

    it('takes maxAttempts from the registered definition unless the enqueue overrides it', async () => {
      const kind = uniqueKind('defaults');
      const q = new JobQueue<AnyJobPayloads>({
        database: t.database,
        definitions: [{ kind, handler: async () => {}, maxAttempts: 9 }],
      });
      assert.equal((await q.get((await q.enqueue(t.database.db, kind, null)).id))?.maxAttempts, 9);
      assert.equal((await q.get((await q.enqueue(t.database.db, kind, null, { maxAttempts: 2 })).id))?.maxAttempts, 2);
    });

    it('dedupes by unique key while pending, and allows it again after completion', async () => {
      const kind = uniqueKind('unique');
      const first = await queue.enqueue(t.database.db, kind, { n: 1 }, { uniqueKey: `${kind}:k` });
      const second = await queue.enqueue(t.database.db, kind, { n: 2 }, { uniqueKey: `${kind}:k` });
      assert.deepEqual(second, { id: first.id, duplicate: true });
      const other = await queue.enqueue(t.database.db, kind, { n: 3 }, { uniqueKey: `${kind}:other` });
      assert.equal(other.duplicate, false);

      const ran: { n: number }[] = [];
      const worker = await startWorker(t.database, queue, [
        { kind, handler: async (job) => void ran.push(job.payload) },
      ]);
      try {
        await waitForState(queue, first.id, ['completed']);
        await waitForState(queue, other.id, ['completed']);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(
        ran.sort((a, b) => a.n - b.n),
        [{ n: 1 }, { n: 3 }],
      );
      const third = await queue.enqueue(t.database.db, kind, { n: 4 }, { uniqueKey: `${kind}:k` });
      assert.equal(third.duplicate, false);
      assert.notEqual(third.id, first.id);
    });

    it('dedupes within one enqueueMany batch', async () => {
      const kind = uniqueKind('many');
      const results = await queue.enqueueMany(t.database.db, [
        { kind, payload: 1, options: { uniqueKey: `${kind}:a` } },
        { kind, payload: 2 },
        { kind, payload: 3, options: { uniqueKey: `${kind}:a` } },
      ]);
      assert.equal(results.length, 3);
      assert.deepEqual(
        results.map((r) => r.duplicate),
        [false, false, true],
      );
      assert.equal(results[2]!.id, results[0]!.id);
    });

    it('never keeps a job enqueued in a rolled-back transaction', async () => {
      const kind = uniqueKind('rollback');
      let id = '';
      await assert.rejects(
        t.database.db.transaction().execute(async (trx) => {
          id = (await queue.enqueue(trx, kind, { doomed: true })).id;
          throw new Error('roll back');
        }),
        /roll back/,
      );
      const ran: unknown[] = [];
      const worker = await startWorker(t.database, queue, [
        { kind, handler: async (job) => void ran.push(job.payload) },
      ]);
      try {
        // A later job of the same kind runs; the rolled-back one (earlier in order) never existed.
        const sentinel = await queue.enqueue(t.database.db, kind, { sentinel: true });
        await waitForState(queue, sentinel.id, ['completed']);
      } finally {
        await worker.stop();
      }
      assert.equal(await queue.get(id), null);
      assert.deepEqual(ran, [{ sentinel: true }]);
    });

    it('cancels a pending job, which then never runs', async () => {
      const kind = uniqueKind('cancel');
      const { id } = await queue.enqueue(t.database.db, kind, null, { runAt: Date.now() + 60_000 });
      assert.equal(await queue.cancel(id), true);
      assert.equal(await queue.cancel(id), false);
      const job = await queue.get(id);
      assert.equal(job?.state, 'cancelled');
      assert.ok(job?.finishedAt);
    });

    it('claims several kinds in one statement, a capped kind no more than its cap', async () => {
      const capped = uniqueKind('capped');
      const open = uniqueKind('open');
      await queue.enqueueMany(t.database.db, [
        ...Array.from({ length: 4 }, (_, i) => ({ kind: capped, payload: { i } })),
        ...Array.from({ length: 4 }, (_, i) => ({ kind: open, payload: { i } })),
      ]);
      const now = Date.now();
      const claimed = await claimJobs(t.database.db, dialect, {
        kinds: [capped, open],
        limit: 5,
        kindLimits: new Map([[capped, 1]]),
        workerId: 'w1',
        now,
        lockedUntil: now + 60_000,
      });
      assert.equal(claimed.length, 5);
      assert.equal(claimed.filter((r) => r.kind === capped).length, 1);
      assert.equal(claimed.filter((r) => r.kind === open).length, 4);
      assert.ok(claimed.every((r) => r.state === 'running' && r.locked_by === 'w1'));
      const none = await claimJobs(t.database.db, dialect, {
        kinds: [capped],
        limit: 5,
        kindLimits: new Map([[capped, 0]]),
        workerId: 'w1',
        now,
        lockedUntil: now + 60_000,
      });
      assert.deepEqual(none, [], 'a kind with no room is not claimed');
    });

    it('counts by kind and state, and prunes finished rows past the cut-off', async () => {
      const kind = uniqueKind('count');
      const a = await queue.enqueue(t.database.db, kind, null);
      await queue.enqueue(t.database.db, kind, null);
      await queue.cancel(a.id);
      const counts = (await queue.countsByKindAndState()).filter((c) => c.kind === kind);
      assert.deepEqual(counts, [
        { kind, state: 'available', count: 1 },
        { kind, state: 'cancelled', count: 1 },
      ]);
      assert.equal(await queue.prune(60_000), 0, 'too recent to prune');
      const later = new JobQueue<AnyJobPayloads>({ database: t.database, clock: { now: () => Date.now() + 120_000 } });
      assert.ok((await later.prune(60_000)) >= 1);
      assert.equal(await queue.get(a.id), null);
      assert.deepEqual(
        (await queue.countsByKindAndState()).filter((c) => c.kind === kind),
        [{ kind, state: 'available', count: 1 }],
      );
    });
  });
}
