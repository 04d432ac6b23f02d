import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { startReceiver, workflowApi } from './helpers.ts';

/** The `workflows.run_node` jobs of one execution, oldest first. */
async function stepJobs(t: TestApp, executionId: string) {
  const rows = await t.container.database.db
    .selectFrom('jobs')
    .select(['id', 'state', 'payload'])
    .where('kind', '=', 'workflows.run_node')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.filter((r) => JSON.parse(r.payload).executionId === executionId);
}

async function runRows(t: TestApp, executionId: string) {
  return t.container.database.db
    .selectFrom('workflow_node_runs')
    .selectAll()
    .where('execution_id', '=', executionId)
    .execute();
}

async function logLines(t: TestApp, executionId: string) {
  const { rows } = await sql<{ kind: string; node_id: string | null; message: string }>`
    select kind, node_id, message from workflow_execution_log where execution_id = ${executionId} order by at, id`.execute(
    t.container.database.db,
  );
  return rows.map((r) => [r.kind, r.node_id, r.message]);
}

describeEachDialect(
  'control steps chained in one job',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let slow: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      slow = await startReceiver(() => ({ status: 200, body: { ok: true }, delayMs: 300 }));
      tenant = await createTenant(ctx(), { tier: 'team' });
      receiver = await startReceiver(() => ({ status: 200, body: { ok: true } }));
    });
    after(async () => {
      await receiver.close();
      await slow.close();
    });

    it('runs the control steps after a result in its job, stops at a node with I/O, and records each step as before', async () => {
      const id = await api.create({
        name: 'Chained',
        nodes: [
          { id: 'check', type: 'condition', config: { expression: 'trigger.amount > 1000' } },
          {
            id: 'big',
            type: 'set_variable',
            depends_on: ['check'],
            run_if: 'nodes.check.output.result',
            config: { name: 'route', value: 'big' },
          },
          {
            id: 'small',
            type: 'set_variable',
            depends_on: ['check'],
            run_if: '!nodes.check.output.result',
            config: { name: 'route', value: 'small' },
          },
          { id: 'merge', type: 'join', depends_on: ['big', 'small'] },
          {
            id: 'call',
            type: 'http_request',
            depends_on: ['merge'],
            timeout_seconds: 60,
            config: { method: 'POST', url: `${receiver.url}/hook`, body: { route: '{{vars.route}}' } },
          },
          {
            id: 'summary',
            type: 'transform',
            depends_on: ['call'],
            config: {
              expression: '{"amount": $trigger.amount, "route": $vars.route, "status": $nodes.call.output.status}',
            },
          },
        ],
      });
      const executionId = await api.run(id, { amount: 5000 });
      const done = await api.finished(executionId);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.final_output, { amount: 5000, route: 'big', status: 200 });
      assert.equal(done.node_results.small.status, 'skipped');
      assert.equal(done.node_results.small.reason, 'run_if is false');
      assert.deepEqual(done.node_results.merge.output, { big: { name: 'route', value: 'big' } });
      assert.equal(JSON.parse(receiver.requests.at(-1)!.body).route, 'big', 'the I/O node saw the chained variable');

      // One job ran check, big, small and merge; the http node and the transform after it had their own.
      const jobs = await stepJobs(ctx(), executionId);
      assert.equal(jobs.length, 3, JSON.stringify(jobs));
      assert.ok(jobs.every((j) => j.state === 'completed'));
      const runs = new Map((await runRows(ctx(), executionId)).map((r) => [r.node_id, r]));
      for (const node of ['check', 'big', 'small', 'merge'])
        assert.equal(runs.get(node)!.runner_job_id, jobs[0]!.id, node);
      assert.equal(runs.get('call')!.runner_job_id, jobs[1]!.id);
      for (const node of ['check', 'big', 'merge', 'call', 'summary']) {
        const run = runs.get(node)!;
        assert.equal(run.status, 'completed', node);
        assert.ok(Number(run.started_at) <= Number(run.completed_at), node);
      }
      assert.deepEqual(
        (await logLines(ctx(), executionId)).filter(([kind]) => kind !== 'started' && kind !== 'completed'),
        [
          ['node_completed', 'check', ''],
          ['node_completed', 'big', ''],
          ['node_skipped', 'small', 'run_if is false'],
          ['node_completed', 'merge', ''],
          ['node_completed', 'call', ''],
          ['node_completed', 'summary', ''],
        ],
      );
    });

    it('a chain beside a branch that moves meanwhile: the execution still records every step once', async () => {
      // `slow` is claimed (marked running) while `check` evaluates: the runs `check` read are no
      // longer the current ones at its commit, so its result commits alone and `shape` gets a job.
      const id = await api.create({
        name: 'Chain beside a slow branch',
        nodes: [
          {
            id: 'slow',
            type: 'http_request',
            timeout_seconds: 60,
            config: { method: 'GET', url: `${slow.url}/slow` },
          },
          { id: 'check', type: 'condition', config: { expression: 'trigger.n > 1' } },
          { id: 'shape', type: 'transform', depends_on: ['check'], config: { expression: '{"n": $trigger.n}' } },
          { id: 'merge', type: 'join', depends_on: ['slow', 'shape'] },
        ],
      });
      const runs = await Promise.all([1, 2, 3].map((n) => api.run(id, { n })));
      for (const [i, executionId] of runs.entries()) {
        const done = await api.finished(executionId);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(done.node_results.check.output, { result: i + 1 > 1 });
        assert.deepEqual(done.final_output, {
          slow: { status: 200, headers: done.node_results.slow.output.headers, body: { ok: true } },
          shape: { n: i + 1 },
        });
        const lines = (await logLines(ctx(), executionId)).filter(([kind]) => kind === 'node_completed');
        assert.deepEqual(lines.map(([, node]) => node).sort(), ['check', 'merge', 'shape', 'slow'], 'each step once');
      }
    });

    it('a chained step that fails is left to its own job, which records the failure after its retries', async () => {
      const id = await api.create({
        name: 'Chain with a failing step',
        nodes: [
          { id: 'check', type: 'condition', config: { expression: 'true' } },
          { id: 'shape', type: 'transform', depends_on: ['check'], config: { expression: '{"ok": true}' } },
          {
            id: 'boom',
            type: 'transform',
            depends_on: ['shape'],
            retry: { max_attempts: 2, backoff_seconds: 0 },
            config: { expression: '$error("boom")' },
          },
          { id: 'never', type: 'transform', depends_on: ['boom'], config: { expression: '1' } },
        ],
      });
      const executionId = await api.run(id);
      const done = await api.finished(executionId);
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.equal(done.failed_node_id, 'boom');
      assert.equal(done.node_results.shape.status, 'completed');
      assert.equal(done.node_results.boom.status, 'failed');
      assert.equal(done.node_results.boom.attempt, 2, 'its retries ran');
      assert.match(done.node_results.boom.error, /Node "boom": expression .* failed: boom/);
      assert.equal(done.node_results.never?.status ?? 'absent', 'absent');
      // check and shape in one job; boom in two (its attempts).
      assert.equal((await stepJobs(ctx(), executionId)).length, 3);
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
