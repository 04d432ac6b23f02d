import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { eventsNamed, mailTo, workflowApi } from './helpers.ts';

/** An approval gate between a start node and two branches (approved / rejected), as contract §10 describes. */
const approvalFlow = (approval: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'Approval flow',
  nodes: [
    { id: 'start', type: 'transform', config: { expression: '$trigger' } },
    {
      id: 'approve',
      type: 'human_approval',
      depends_on: ['start'],
      timeout_hours: 24,
      config: {
        assignee_type: 'role',
        assignee_value: 'finance_manager',
        title: 'Approve {{trigger.invoice}}',
        ...approval,
      },
    },
    {
      id: 'pay',
      type: 'transform',
      depends_on: ['approve'],
      config: { expression: '"paid " & $nodes.approve.output.data.amount' },
    },
    {
      id: 'on_reject',
      type: 'transform',
      depends_on: ['approve'],
      run_if: 'nodes.approve.output.decision == "rejected"',
      config: { expression: '"rejected: " & $nodes.approve.output.comments' },
    },
  ],
  ...extra,
});

describeEachDialect(
  'workflow human tasks',
  (ctx) => {
    let tenant: TestTenant;
    let finance: LoggedInUser;
    let outsider: LoggedInUser;
    const api = workflowApi(ctx, () => tenant.headers);
    const taskOf = async (executionId: string) => {
      await api.until(executionId, ['paused', 'completed', 'failed']);
      const row = await ctx()
        .container.database.db.selectFrom('workflow_tasks')
        .select('id')
        .where('execution_id', '=', executionId)
        .executeTakeFirstOrThrow();
      return (await api.call('GET', `/dag/tasks/${row.id}`)).json();
    };
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      finance = await loginAs(ctx(), tenant, 'member', {
        roles: ['finance_manager'],
        email: `fin-${tenant.subdomain}@example.com`,
      });
      outsider = await loginAs(ctx(), tenant, 'member', { email: `out-${tenant.subdomain}@example.com` });
    });

    it('an approval pauses the execution awaiting_approval; the assignee approves; the flow goes on', async () => {
      const id = await api.create(approvalFlow({ data: { amount: '{{trigger.amount}}' } }), true);
      const execId = await api.run(id, { invoice: 'INV-5', amount: 900 });
      const task = await taskOf(execId);
      const paused = await api.execution(execId);
      assert.deepEqual([paused.status, paused.paused_reason], ['paused', 'awaiting_approval']);
      assert.equal(task.status, 'pending');
      assert.equal(task.title, 'Approve INV-5');
      assert.deepEqual(
        [task.task_type, task.assignee_type, task.assignee_value, task.workflow_name, task.node_id],
        ['approval', 'role', 'finance_manager', 'Approval flow', 'approve'],
      );
      // Both count from the node's start (just before the task's creation).
      assert.equal(
        Date.parse(task.due_at) - Date.parse(task.escalation_at),
        6 * 3_600_000,
        'escalation defaults to three quarters of the timeout',
      );
      assert.ok(Math.abs(Date.parse(task.due_at) - Date.parse(task.created_at) - 24 * 3_600_000) < 1_000);
      assertError(await api.call('POST', `/dag/executions/${execId}/resume`), 409, 'execution_not_resumable');
      assert.equal((await mailTo(ctx(), tenant.tenantId, finance.email)).length, 1, 'the assignee is told');

      const mine = (await api.call('GET', `/dag/tasks?assignee=${finance.userId}&status=pending`)).json();
      assert.deepEqual(
        mine.data.map((t: { id: string }) => t.id),
        [task.id],
      );
      assert.equal((await api.call('GET', `/dag/tasks?assignee=${outsider.userId}`)).json().total, 0);
      assert.equal((await api.call('GET', '/dag/tasks?role=finance_manager')).json().total >= 1, true);

      assertError(
        await api.call('POST', `/dag/tasks/${task.id}/complete`, { decision: 'approved' }, outsider.headers),
        403,
        'insufficient_permissions',
      );
      const done = await api.call(
        'POST',
        `/dag/tasks/${task.id}/complete`,
        { decision: 'approved', comments: 'fine' },
        finance.headers,
      );
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().status, 'completed');
      assert.equal(done.json().decision, 'approved');
      assert.equal(done.json().execution_id, execId);
      assert.equal(done.json().execution_status, 'running');
      assertError(
        await api.call('POST', `/dag/tasks/${task.id}/complete`, { decision: 'rejected' }, finance.headers),
        409,
        'task_already_completed',
      );

      const finished = await api.finished(execId);
      assert.equal(finished.status, 'completed', JSON.stringify(finished));
      const output = finished.node_results.approve.output;
      assert.deepEqual(
        { ...output, decided_at: typeof output.decided_at },
        {
          decision: 'approved',
          comments: 'fine',
          data: { amount: 900 },
          decided_by: finance.userId,
          decided_at: 'string',
          decision_source: 'human',
        },
      );
      assert.equal(finished.node_results.pay.output, 'paid 900');
      assert.equal(finished.node_results.on_reject.status, 'skipped');
      const created = (await eventsNamed(ctx(), tenant.tenantId, 'dag.task.created')).find(
        (e) => e.task_id === task.id,
      );
      assert.equal(created?.assignee_value, 'finance_manager');
      const completed = (await eventsNamed(ctx(), tenant.tenantId, 'dag.task.completed')).find(
        (e) => e.task_id === task.id,
      );
      assert.deepEqual(completed, {
        task_id: task.id,
        execution_id: execId,
        workflow_id: id,
        decision: 'approved',
        completed_by: finance.userId,
      });
      const pausedEvent = (await eventsNamed(ctx(), tenant.tenantId, 'dag.execution.paused')).find(
        (e) => e.execution_id === execId,
      );
      assert.equal(pausedEvent?.paused_reason, 'awaiting_approval');
    });

    it('rejected: dependents without run_if are skipped, the rejection branch runs; modified merges data', async () => {
      const id = await api.create(approvalFlow({ data: { amount: '{{trigger.amount}}', note: 'x' } }), true);
      const rejectedExec = await api.run(id, { invoice: 'INV-6', amount: 50 });
      const task = await taskOf(rejectedExec);
      assert.equal(
        (await api.call('POST', `/dag/tasks/${task.id}/complete`, { decision: 'rejected', comments: 'too much' }))
          .statusCode,
        200,
        'an admin (API key) may decide',
      );
      const rejected = await api.finished(rejectedExec);
      assert.equal(rejected.status, 'completed', JSON.stringify(rejected));
      assert.equal(rejected.node_results.pay.status, 'skipped');
      assert.equal(rejected.node_results.on_reject.output, 'rejected: too much');

      const modifiedExec = await api.run(id, { invoice: 'INV-7', amount: 50 });
      const second = await taskOf(modifiedExec);
      assertError(
        await api.call('POST', `/dag/tasks/${second.id}/complete`, { decision: 'modified' }, finance.headers),
        400,
        'validation_error',
      );
      const res = await api.call(
        'POST',
        `/dag/tasks/${second.id}/complete`,
        { decision: 'modified', modified_data: { amount: 45 } },
        finance.headers,
      );
      assert.equal(res.statusCode, 200, res.body);
      const modified = await api.finished(modifiedExec);
      assert.deepEqual(modified.node_results.approve.output.data, { amount: 45, note: 'x' });
      assert.equal(modified.node_results.pay.output, 'paid 45');
    });

    it('a review accepts only its editable fields; workspace and user assignees; two completions at once: one wins', async () => {
      const ws = await api.call('POST', '/workspaces', { name: `Reviewers ${Date.now()}` });
      assert.equal(ws.statusCode, 201, ws.body);
      assert.equal(
        (await api.call('POST', `/workspaces/${ws.json().id}/members`, { user_id: outsider.userId })).statusCode,
        201,
      );
      const mailed = async () => [
        (await mailTo(ctx(), tenant.tenantId, outsider.email)).length,
        (await mailTo(ctx(), tenant.tenantId, finance.email)).length,
      ];
      const [outsiderBefore, financeBefore] = await mailed();
      const id = await api.create(
        {
          name: 'Review',
          nodes: [
            {
              id: 'review',
              type: 'human_review',
              timeout_hours: 2,
              config: {
                assignee_type: 'workspace',
                assignee_value: ws.json().id,
                editable_fields: ['title'],
                data: { title: 'Draft', amount: 3 },
              },
            },
            {
              id: 'assign',
              type: 'human_assignment',
              depends_on: ['review'],
              timeout_hours: 2,
              config: { assignee_type: 'user', assignee_value: finance.userId, selection_criteria: { skill: 'tax' } },
            },
          ],
        },
        true,
      );
      const execId = await api.run(id);
      const review = await taskOf(execId);
      assert.equal(review.task_type, 'review');
      assert.deepEqual(
        await mailed(),
        [outsiderBefore! + 1, financeBefore],
        "the workspace's members are told, no one else",
      );
      assert.deepEqual(review.editable_fields, ['title']);
      assert.deepEqual(
        (await api.call('GET', `/dag/tasks?assignee=${outsider.userId}&status=pending`))
          .json()
          .data.map((t: { id: string }) => t.id),
        [review.id],
      );
      const refused = assertError(
        await api.call(
          'POST',
          `/dag/tasks/${review.id}/complete`,
          { decision: 'modified', modified_data: { amount: 9 } },
          outsider.headers,
        ),
        400,
        'validation_error',
      );
      assert.equal(refused.details.errors[0].field, 'modified_data.amount');
      assert.equal(
        (
          await api.call(
            'POST',
            `/dag/tasks/${review.id}/complete`,
            { decision: 'modified', modified_data: { title: 'Final' } },
            outsider.headers,
          )
        ).statusCode,
        200,
      );

      const assignment = await waitFor(async () => {
        const row = await ctx()
          .container.database.db.selectFrom('workflow_tasks')
          .select('id')
          .where('execution_id', '=', execId)
          .where('node_id', '=', 'assign')
          .executeTakeFirst();
        return row?.id;
      }, 'the assignment task');
      const got = (await api.call('GET', `/dag/tasks/${assignment}`)).json();
      assert.deepEqual(
        [got.task_type, got.assignee_type, got.context],
        ['assignment', 'user', { selection_criteria: { skill: 'tax' } }],
      );
      assert.deepEqual(await mailed(), [outsiderBefore! + 1, financeBefore! + 1], 'the assigned user is told');
      const answers = await Promise.all([
        api.call('POST', `/dag/tasks/${assignment}/complete`, { decision: 'approved' }, finance.headers),
        api.call('POST', `/dag/tasks/${assignment}/complete`, { decision: 'rejected' }),
      ]);
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409]);
      assert.equal(answers.find((a) => a.statusCode === 409)!.json().code, 'TASK_ALREADY_COMPLETED');
      assert.equal((await api.finished(execId)).status, 'completed');
    });

    it('escalation (reassigned, event, still pending) and expiry with on_timeout, on short fractional times', async () => {
      const id = await api.create(
        approvalFlow({ escalate_after_hours: 0.0003, escalate_to: 'cfo', on_timeout: 'approve' }),
        true,
      );
      await api.call('PUT', `/dag/workflows/${id}`, {
        nodes: approvalFlow({ escalate_after_hours: 0.0003, escalate_to: 'cfo', on_timeout: 'approve' }).nodes.map(
          (n) => (n.id === 'approve' ? { ...n, timeout_hours: 0.0008 } : n),
        ),
      });
      const execId = await api.run(id, { invoice: 'INV-8', amount: 1 });
      const task = await taskOf(execId);
      const db = ctx().container.database.db;
      await waitFor(
        async () =>
          (await db.selectFrom('workflow_tasks').select('escalated_at').where('id', '=', task.id).executeTakeFirst())
            ?.escalated_at ?? false,
        'the escalation',
        10_000,
      );
      const escalated = (await api.call('GET', `/dag/tasks/${task.id}`)).json();
      assert.deepEqual([escalated.status, escalated.assignee_value], ['pending', 'cfo']);
      const lateness = Date.parse(escalated.escalated_at) - Date.parse(escalated.escalation_at);
      assert.ok(lateness >= 0 && lateness < 2_000, `escalated ${lateness} ms after its time`);
      assert.ok(
        (await eventsNamed(ctx(), tenant.tenantId, 'dag.task.escalated')).some(
          (e) => e.task_id === task.id && e.escalated_to === 'cfo',
        ),
      );
      const done = await api.finished(execId, 15_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.node_results.approve.output.decision, 'approved');
      assert.equal(done.node_results.approve.output.decision_source, 'timeout');
      const expired = (await api.call('GET', `/dag/tasks/${task.id}`)).json();
      assert.equal(expired.status, 'expired');
      assertError(
        await api.call('POST', `/dag/tasks/${task.id}/complete`, { decision: 'approved' }),
        409,
        'task_expired',
      );

      const failing = await api.create(
        approvalFlow({ on_timeout: 'fail' }, { error_handling: { on_failure: 'fail' } }),
        false,
      );
      await api.call('PUT', `/dag/workflows/${failing}`, {
        nodes: approvalFlow({}).nodes.map((n) => (n.id === 'approve' ? { ...n, timeout_hours: 0.0004 } : n)),
      });
      const failed = await api.finished(await api.run(failing, { invoice: 'INV-9', amount: 1 }), 15_000);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /task "Approve INV-9" expired/);
    });

    it('cancel expires pending tasks; another tenant cannot see or complete tasks', async () => {
      const id = await api.create(approvalFlow({}), true);
      const execId = await api.run(id, { invoice: 'INV-10', amount: 1 });
      const task = await taskOf(execId);
      const other = await createTenant(ctx(), { tier: 'team' });
      assertError(await api.call('GET', `/dag/tasks/${task.id}`, undefined, other.headers), 404, 'task_not_found');
      assertError(
        await api.call('POST', `/dag/tasks/${task.id}/complete`, { decision: 'approved' }, other.headers),
        404,
        'task_not_found',
      );
      assert.equal((await api.call('GET', '/dag/tasks', undefined, other.headers)).json().total, 0);
      assert.equal(
        (await api.call('POST', `/dag/executions/${execId}/cancel`, { reason: 'withdrawn' })).statusCode,
        200,
      );
      assert.equal((await api.call('GET', `/dag/tasks/${task.id}`)).json().status, 'expired');
      assertError(
        await api.call('POST', `/dag/tasks/${task.id}/complete`, { decision: 'approved' }),
        409,
        'task_expired',
      );
    });
  },
  { worker: true },
);
