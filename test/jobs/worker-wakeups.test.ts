import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import type { AnyJobPayloads } from '../../src/jobs/job-types.ts';
import { availableDialects, openTestDatabase } from '../support/databases.ts';
import { newQueue, startWorker, uniqueKind, waitFor } from './helpers.ts';

/*
 * The worker claims on wake-ups (an enqueue in this process, PostgreSQL's NOTIFY, a freed slot)
 * and on its poll. Here the poll is an hour away, so every job below must be found by a wake-up:
 * a freed slot after a claim that left jobs behind (all slots taken, or a capped kind's room), and
 * a job enqueued inside a transaction, which a wake-up before its commit cannot see.
 */
const NO_POLL = { pollIntervalMs: 3_600_000 };

for (const dialect of await availableDialects()) {
  describe(`Worker wake-ups without the poll, on ${dialect}`, () => {
    let t: Awaited<ReturnType<typeof openTestDatabase>>;
    let queue: JobQueue<AnyJobPayloads>;
    before(async () => {
      t = await openTestDatabase(dialect);
      queue = newQueue(t.database);
    });
    after(() => t.close());

    it('a backlog larger than the slots drains as slots free', async () => {
      const kind = uniqueKind('backlog');
      let done = 0;
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind,
            handler: async () => {
              await new Promise((r) => setTimeout(r, 5));
              done++;
            },
          },
        ],
        { ...NO_POLL, concurrency: 2 },
      );
      try {
        await queue.enqueueMany(
          t.database.db,
          Array.from({ length: 9 }, (_, i) => ({ kind, payload: { i } })),
        );
        await waitFor(() => done === 9, 'the nine jobs to run');
      } finally {
        await worker.stop();
      }
    });

    it("a capped kind's waiting jobs run when its running one finishes", async () => {
      const capped = uniqueKind('capped');
      const other = uniqueKind('other');
      const ran: string[] = [];
      const handler = async (job: { payload: unknown }) => {
        await new Promise((r) => setTimeout(r, 5));
        ran.push(String((job.payload as { name: string }).name));
      };
      const worker = await startWorker(
        t.database,
        queue,
        [
          { kind: capped, concurrency: 1, handler },
          { kind: other, handler },
        ],
        { ...NO_POLL, concurrency: 4 },
      );
      try {
        await queue.enqueueMany(t.database.db, [
          ...Array.from({ length: 4 }, (_, i) => ({ kind: capped, payload: { name: `capped${i}` } })),
          { kind: other, payload: { name: 'other' } },
        ]);
        await waitFor(() => ran.length === 5, 'the five jobs to run');
        assert.deepEqual(ran.filter((n) => n.startsWith('capped')).sort(), [
          'capped0',
          'capped1',
          'capped2',
          'capped3',
        ]);
      } finally {
        await worker.stop();
      }
    });

    it('a job enqueued in a transaction runs once it commits, and one its handler enqueues runs too', async () => {
      const first = uniqueKind('first');
      const second = uniqueKind('second');
      const ran: string[] = [];
      const worker = await startWorker(
        t.database,
        queue,
        [
          {
            kind: first,
            handler: async () => {
              await t.database.db.transaction().execute((trx) => queue.enqueue(trx, second, {}));
              ran.push('first');
            },
          },
          { kind: second, handler: async () => void ran.push('second') },
        ],
        NO_POLL,
      );
      try {
        await t.database.db.transaction().execute(async (trx) => {
          await queue.enqueue(trx, first, {});
          // Held open past the wake-up the enqueue gave, so that wake-up's claim cannot see it.
          await new Promise((r) => setTimeout(r, 50));
        });
        await waitFor(() => ran.length === 2, 'both jobs to run');
        assert.deepEqual(ran.sort(), ['first', 'second']);
      } finally {
        await worker.stop();
      }
    });
  });
}
