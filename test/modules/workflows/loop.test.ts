import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WorkflowNode } from '../../../src/modules/workflows/engine/types.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { ExpressionEvaluator } from '../../../src/modules/workflows/engine/expression-evaluator.ts';
import {
  controlHandlers,
  type NodeHandler,
  type NodeInput,
  type NodeOutcome,
} from '../../../src/modules/workflows/node-handlers.ts';
import { LOOP_BATCH, loopHandler } from '../../../src/modules/workflows/nodes/loop-node.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { mailTo, messageOf, workflowApi } from './helpers.ts';

const LOOP: WorkflowNode = { id: 'each', type: 'loop', config: {} };

function input(items: unknown[], checkpoint: unknown, concurrency = 1): NodeInput {
  const rawConfig = {
    items: '{{trigger.items}}',
    concurrency,
    node: { type: 'transform', config: { expression: '$item * 10' } },
  };
  return {
    node: LOOP,
    config: { ...rawConfig, items },
    rawConfig,
    scope: { trigger: { items }, nodes: {}, vars: {}, execution: { id: 'exec-1' } },
    startedAt: 0,
    checkpoint,
    now: 0,
    idempotencyKey: 'exec-1:each:0',
    tenantId: 't',
    actingAs: () => Promise.reject(new Error('a transform reads no document')),
    signal: new AbortController().signal,
    maxReferenceBytes: 1024 * 1024,
  };
}

/** Runs the loop job after job, as the runner would, handing each checkpoint to the next. */
async function runToEnd(
  handler: NodeHandler,
  items: unknown[],
  concurrency = 1,
): Promise<{ output: unknown; jobs: number; progress: string[] }> {
  let checkpoint: unknown = null;
  const progress: string[] = [];
  for (let jobs = 1; jobs < 1_000; jobs++) {
    const outcome: NodeOutcome = await handler(input(items, checkpoint, concurrency));
    if (outcome.kind === 'completed') return { output: outcome.output, jobs, progress };
    assert.equal(outcome.kind, 'checkpoint');
    if (outcome.kind !== 'checkpoint') throw new Error('unexpected outcome');
    checkpoint = JSON.parse(JSON.stringify(outcome.checkpoint)); // as the column gives it back
    progress.push(outcome.progress);
  }
  throw new Error('the loop never finished');
}

describe('loop batches (handler)', () => {
  const expressions = new ExpressionEvaluator(loadConfig({}).expressions);
  after(() => expressions.close());
  const handlers = { transform: controlHandlers(expressions).transform! };
  const items = [1, 2, 3, 4, 5, 6, 7];

  it('runs at most maxItems per job and goes on from the checkpoint, outputs in order', async () => {
    const result = await runToEnd(loopHandler(handlers, { maxItems: 3, checkpointAfterMs: 60_000 }), items, 2);
    assert.deepEqual(result.output, [10, 20, 30, 40, 50, 60, 70]);
    assert.equal(result.jobs, 3);
    assert.deepEqual(result.progress, ['3 of 7 items done', '6 of 7 items done']);
  });

  it('checkpoints after its time budget (the first item always runs)', async () => {
    const result = await runToEnd(loopHandler(handlers, { maxItems: 100, checkpointAfterMs: 0 }), items, 4);
    assert.deepEqual(result.output, [10, 20, 30, 40, 50, 60, 70]);
    assert.equal(result.jobs, 7, 'one item per job when the budget is spent at once');
  });

  it('a short loop is one job; an empty one completes at once', async () => {
    assert.deepEqual(await runToEnd(loopHandler(handlers), items), {
      output: [10, 20, 30, 40, 50, 60, 70],
      jobs: 1,
      progress: [],
    });
    assert.deepEqual(await runToEnd(loopHandler(handlers), []), { output: [], jobs: 1, progress: [] });
  });

  it('fails when items shrank below what was already done', async () => {
    await assert.rejects(
      loopHandler(handlers)(input([1, 2], { outputs: [10, 20, 30] })),
      /3 items were done but "items" now has 2/,
    );
  });
});

/** A loop long enough for several jobs, through the API, with the in-process worker. */
describeEachDialect(
  'loop in batches',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      // The process's first expression starts the sandbox process (~0.2 s on a quiet machine, over a
      // second on a loaded one): started here, so it does not eat the first batch's 1 s budget below.
      const warm = await api.create({
        name: 'Warm-up',
        nodes: [{ id: 't', type: 'transform', config: { expression: '1' } }],
      });
      assert.equal((await api.finished(await api.run(warm), 60_000)).status, 'completed');
    });

    it('250 items run in three jobs with their progress logged; inner notifications are written once each', async () => {
      const id = await api.create({
        name: 'Long loop',
        nodes: [
          {
            id: 'square',
            type: 'loop',
            timeout_seconds: 30,
            config: {
              items: '{{trigger.numbers}}',
              concurrency: 4,
              node: { type: 'transform', config: { expression: '$item * $item' } },
            },
          },
          {
            id: 'tell',
            type: 'loop',
            depends_on: ['square'],
            timeout_seconds: 30,
            config: {
              items: '{{trigger.people}}',
              node: { type: 'notification', config: { to: '{{item}}', subject: 'Hello', message: 'Item {{index}}' } },
            },
          },
        ],
      });
      const numbers = Array.from({ length: 250 }, (_, i) => i);
      const people = Array.from({ length: 120 }, (_, i) => `person-${i}@example.com`);
      // The jobs are cut by the item cap here. The time budget (1 s a job) would cut them earlier on a
      // loaded machine, where 100 notifications can take longer; it has tests of its own above.
      const budget = LOOP_BATCH.checkpointAfterMs;
      LOOP_BATCH.checkpointAfterMs = 120_000;
      let execId: string;
      let done: Awaited<ReturnType<typeof api.finished>>;
      try {
        execId = await api.run(id, { numbers, people });
        done = await api.finished(execId, 60_000);
      } finally {
        LOOP_BATCH.checkpointAfterMs = budget;
      }
      assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 2000));
      assert.deepEqual(
        done.node_results.square.output,
        numbers.map((n) => n * n),
      );
      assert.equal(done.node_results.tell.output.length, 120);

      const db = ctx().container.database.db;
      const log = await db
        .selectFrom('workflow_execution_log')
        .select(['node_id', 'message'])
        .where('execution_id', '=', execId)
        .where('kind', '=', 'node_progress')
        .orderBy('at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        log.map((l) => `${l.node_id}: ${l.message}`),
        ['square: 100 of 250 items done', 'square: 200 of 250 items done', 'tell: 100 of 120 items done'],
      );
      for (const who of [people[0]!, people[99]!, people[100]!, people[119]!]) {
        const mail = await mailTo(ctx(), tenant.tenantId, who);
        assert.deepEqual(
          mail.map((m) => messageOf(m.body)),
          [`Item ${people.indexOf(who)}`],
          who,
        );
      }
      const runs = await db
        .selectFrom('workflow_node_runs')
        .select('checkpoint')
        .where('execution_id', '=', execId)
        .execute();
      assert.ok(
        runs.every((r) => r.checkpoint === null),
        'a finished loop keeps no checkpoint',
      );
    });
  },
  { worker: true },
);
