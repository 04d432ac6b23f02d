import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { JobDefinition } from '../../../src/jobs/job-types.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { RUN_NODE_JOB, type RunNodePayload } from '../../../src/modules/workflows/execution-engine.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

/** The job priority of every `workflows.run_node` job of an execution, in the order they were made. */
async function stepPriorities(t: TestApp, executionId: string): Promise<number[]> {
  const rows = await t.container.database.db
    .selectFrom('jobs')
    .select(['priority', 'payload'])
    .where('kind', '=', RUN_NODE_JOB)
    .where('payload', 'like', `%${executionId}%`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.priority));
}

/**
 * `priority` of execute (low, normal, high, urgent): stored, shown, and the job priority of every
 * step of the execution. The app runs no worker: each test drives its own.
 */
describeEachDialect('workflow execution priority', (ctx) => {
  let tenant: TestTenant;
  const api = workflowApi(ctx, () => tenant.headers);
  const execute = (workflowId: string, body: unknown) => api.call('POST', `/dag/workflows/${workflowId}/execute`, body);
  const start = async (workflowId: string, priority?: string): Promise<string> => {
    const res = await execute(workflowId, { trigger_data: {}, ...(priority ? { priority } : {}) });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().execution_id as string;
  };

  it('accepts low, normal, high and urgent (default normal; medium and critical as aliases), shows it, and refuses anything else naming the field', async () => {
    // Enterprise: the test starts more executions than a Team tenant may in a minute.
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
    const id = await api.create(
      { name: 'One step', nodes: [{ id: 'only', type: 'transform', config: { expression: '1' } }] },
      true,
    );
    for (const wrong of ['asap', 'URGENT', '', 3]) {
      const body = assertError(await execute(id, { priority: wrong }), 400, 'validation_error');
      const errors = body.details.errors as { field: string; message: string }[];
      assert.ok(
        errors.every((e) => e.field === 'priority'),
        JSON.stringify(errors),
      );
      assert.ok(
        errors.some((e) => e.message === 'must be one of: low, normal, high, urgent, medium, critical'),
        JSON.stringify(errors),
      );
    }
    const plain = await start(id);
    const urgent = await start(id, 'urgent');
    assert.equal((await api.execution(plain)).priority, 'normal');
    assert.equal((await api.execution(urgent)).priority, 'urgent');
    const list = (await api.call('GET', `/dag/executions?workflow_id=${id}`)).json();
    assert.deepEqual(Object.fromEntries(list.data.map((e: { id: string; priority: string }) => [e.id, e.priority])), {
      [plain]: 'normal',
      [urgent]: 'urgent',
    });
    assert.deepEqual(await stepPriorities(ctx(), plain), [0], 'normal keeps the job priority every step had before');
    assert.deepEqual(await stepPriorities(ctx(), urgent), [-2]);
    // Common other spellings are taken as the priority they mean, and shown as it.
    assert.equal((await api.execution(await start(id, 'medium'))).priority, 'normal');
    assert.equal((await api.execution(await start(id, 'critical'))).priority, 'urgent');
  });

  it('under a backlog of low executions, the urgent one is claimed first, then high, normal, then the lows in order', async () => {
    const id = await api.create(
      { name: 'Backlog', nodes: [{ id: 'only', type: 'transform', config: { expression: '$trigger' } }] },
      true,
    );
    const lows: string[] = [];
    for (let i = 0; i < 6; i++) lows.push(await start(id, 'low'));
    const normal = await start(id, 'normal');
    const urgent = await start(id, 'urgent');
    const high = await start(id, 'high');
    assert.deepEqual(await stepPriorities(ctx(), lows[0]!), [1]);

    // One worker that runs only workflow steps, one at a time, noting whose step it claimed.
    const claimed: string[] = [];
    const definitions = ctx()
      .container.jobDefinitions()
      .filter((d) => d.kind === RUN_NODE_JOB)
      .map(
        (d): JobDefinition<RunNodePayload> => ({
          ...d,
          handler: async (job) => {
            claimed.push(job.payload.executionId);
            await d.handler(job);
          },
        }),
      );
    const { database, jobs, clock } = ctx().container;
    const worker = new Worker({
      database,
      queue: jobs,
      definitions,
      clock,
      concurrency: 1,
      pollIntervalMs: 50,
      leaseMs: 30_000,
      retentionMs: null,
    });
    await worker.start();
    try {
      for (const execId of [...lows, normal, urgent, high])
        assert.equal((await api.finished(execId)).status, 'completed');
    } finally {
      await worker.stop(5_000);
    }
    // Steps left waiting by the test before are claimed too; the order among this test's is the point.
    const mine = new Set([...lows, normal, urgent, high]);
    assert.deepEqual(
      claimed.filter((e) => mine.has(e)),
      [urgent, high, normal, ...lows],
    );
  });

  it('every later step keeps the priority: next nodes, a durable timer, a resume after pause, a retry, task timers', async () => {
    const id = await api.create(
      {
        name: 'Steps',
        nodes: [
          { id: 'wait', type: 'delay', timeout_seconds: 30, config: { seconds: 0.6 } },
          { id: 'after', type: 'transform', depends_on: ['wait'], config: { expression: '1' } },
        ],
      },
      true,
    );
    const failing = await api.create(
      {
        name: 'Retried',
        nodes: [
          { id: 'boom', type: 'transform', retry: { max_attempts: 2 }, config: { expression: '$error("boom")' } },
        ],
      },
      true,
    );
    const approval = await api.create(
      {
        name: 'Asks',
        nodes: [
          {
            id: 'ask',
            type: 'human_approval',
            timeout_hours: 1,
            config: { assignee_type: 'role', assignee_value: 'admin', title: 'OK?' },
          },
        ],
      },
      true,
    );
    const worker = ctx().container.createWorker({ concurrency: 2 });
    await worker.start();
    try {
      const timed = await start(id, 'urgent');
      const paused = await start(id, 'high');
      const db = ctx().container.database.db;
      const finishedJobs = async () =>
        (
          await db
            .selectFrom('jobs')
            .select('id')
            .where('kind', '=', RUN_NODE_JOB)
            .where('state', '=', 'completed')
            .where('payload', 'like', `%${paused}%`)
            .execute()
        ).length;
      await waitFor(async () => (await stepPriorities(ctx(), paused)).length >= 2, 'the delay to arm its timer');
      assert.equal((await api.call('POST', `/dag/executions/${paused}/pause`)).statusCode, 200);
      // The timer fires while paused (its job does nothing); resume gives the run a new job.
      await waitFor(async () => (await finishedJobs()) >= 2, 'the timer to fire while paused');
      assert.equal((await api.call('POST', `/dag/executions/${paused}/resume`, {})).statusCode, 200);
      const retried = await start(failing, 'low');
      const asked = await start(approval, 'urgent');

      assert.equal((await api.finished(timed)).status, 'completed');
      assert.equal((await api.finished(paused)).status, 'completed');
      assert.equal((await api.finished(retried)).status, 'failed');
      await api.until(asked, ['paused']);

      assert.deepEqual(await stepPriorities(ctx(), timed), [-2, -2, -2], 'first step, its timer, the next node');
      assert.deepEqual(
        await stepPriorities(ctx(), paused),
        [-1, -1, -1, -1],
        'first step, its timer, the resume, the next node',
      );
      assert.deepEqual(await stepPriorities(ctx(), retried), [1, 1], 'the first attempt and its retry');
      const task = await db
        .selectFrom('workflow_tasks')
        .select('id')
        .where('execution_id', '=', asked)
        .executeTakeFirstOrThrow();
      const timers = await db
        .selectFrom('jobs')
        .select('priority')
        .where('kind', '=', 'workflows.task_timer')
        .where('payload', 'like', `%${task.id}%`)
        .execute();
      assert.deepEqual(
        timers.map((t) => Number(t.priority)),
        [-2, -2],
        'escalation and expiry',
      );
    } finally {
      await worker.stop(5_000);
    }
  });
});
