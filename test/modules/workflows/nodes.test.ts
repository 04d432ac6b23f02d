import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { eventsNamed, mailTo, messageOf, startReceiver, workflowApi } from './helpers.ts';

describeEachDialect(
  'workflow nodes and events',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      receiver = await startReceiver((req) =>
        req.path === '/fail' ? { status: 503, body: { error: 'down' } } : { status: 200, body: { echoed: req.body } },
      );
    });
    after(() => receiver.close());

    it('schedule waits for the next cron occurrence in its time zone (a durable timer)', async () => {
      const id = await api.create({
        name: 'Waits for a tick',
        nodes: [
          {
            id: 'tick',
            type: 'schedule',
            timeout_seconds: 10,
            config: { cron_expression: '*/2 * * * * *', timezone: 'America/New_York' },
          },
        ],
      });
      const started = Date.now();
      const done = await api.finished(await api.run(id));
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const due = Date.parse(done.final_output.scheduled_for);
      assert.equal(new Date(due).getUTCSeconds() % 2, 0);
      assert.ok(due > started - 1000 && Date.parse(done.node_results.tick.completed_at) >= due, JSON.stringify(done));
      const bad = await api.create({
        name: 'Bad cron',
        status: 'draft',
        nodes: [{ id: 'tick', type: 'schedule', config: { cron_expression: 'every day', timezone: 'Mars/Olympus' } }],
      });
      const validation = (await api.call('POST', `/dag/workflows/${bad}/validate`)).json();
      assert.equal(validation.valid, false);
      assert.ok(
        validation.errors.some((e: string) => e.startsWith('Node "tick" cron_expression is not valid')),
        validation.errors,
      );
    });

    it('notification writes one message per address to the mail outbox, with resolved references', async () => {
      const id = await api.create({
        name: 'Tells people',
        nodes: [
          {
            id: 'note',
            type: 'notification',
            timeout_seconds: 5,
            config: {
              to: '{{trigger.emails}}',
              subject: 'Invoice {{trigger.invoice}}',
              message: 'Amount {{trigger.amount}}',
            },
          },
        ],
      });
      const done = await api.finished(
        await api.run(id, { emails: ['a@example.com', 'b@example.com'], invoice: 'INV-9', amount: 12 }),
      );
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.final_output, {
        to: ['a@example.com', 'b@example.com'],
        subject: 'Invoice INV-9',
        queued: 2,
      });
      for (const to of ['a@example.com', 'b@example.com']) {
        const mail = await mailTo(ctx(), tenant.tenantId, to);
        assert.deepEqual(
          mail.map((m) => [m.subject, messageOf(m.body), m.kind]),
          [['Invoice INV-9', 'Amount 12', 'workflow_notification']],
        );
      }
      const bad = await api.finished(await api.run(id, { emails: ['not-an-address'], invoice: 'x', amount: 1 }));
      assert.equal(bad.status, 'failed');
      assert.match(bad.error, /Node "note": "to" must be e-mail addresses/);
    });

    it('http_request: non-2xx fails the node; notify_on_failure mails; the failed event has its data', async () => {
      const id = await api.create({
        name: 'Calls out',
        error_handling: { on_failure: 'fail', notify_on_failure: ['oncall@example.com'] },
        nodes: [
          {
            id: 'call',
            type: 'http_request',
            timeout_seconds: 5,
            config: { method: 'POST', url: '{{trigger.url}}', body: { n: '{{trigger.n}}' } },
          },
        ],
      });
      const ok = await api.finished(await api.run(id, { url: `${receiver.url}/ok`, n: 7 }));
      assert.equal(ok.status, 'completed', JSON.stringify(ok));
      assert.equal(ok.final_output.status, 200);
      assert.deepEqual(ok.final_output.body, { echoed: '{"n":7}' });
      const failed = await api.finished(await api.run(id, { url: `${receiver.url}/fail`, n: 1 }));
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failed_node_id, 'call');
      assert.match(failed.error, /answered 503/);
      const mail = await mailTo(ctx(), tenant.tenantId, 'oncall@example.com');
      assert.equal(mail.length, 1);
      assert.match(mail[0]!.subject, /Workflow "Calls out" failed/);
      assert.match(mail[0]!.body, /at node "call"/);
      const failedEvent = (await eventsNamed(ctx(), tenant.tenantId, 'dag.execution.failed')).find(
        (e) => e.execution_id === failed.id,
      );
      assert.deepEqual(failedEvent, {
        execution_id: failed.id,
        workflow_id: id,
        workflow_name: 'Calls out',
        status: 'failed',
        error: failed.error,
        failed_node_id: 'call',
      });
      const started = (await eventsNamed(ctx(), tenant.tenantId, 'dag.execution.started')).find(
        (e) => e.execution_id === ok.id,
      );
      assert.deepEqual(started, {
        execution_id: ok.id,
        workflow_id: id,
        workflow_name: 'Calls out',
        status: 'running',
        trigger_type: 'api',
      });
    });

    it('pause records dag.execution.paused; another tenant cannot see, run, pause, resume or cancel', async () => {
      const id = await api.create({
        name: 'Slow',
        nodes: [{ id: 'wait', type: 'delay', timeout_seconds: 60, config: { seconds: 30 } }],
      });
      const execId = await api.run(id);
      const other = await createTenant(ctx(), { tier: 'team' });
      assertError(await api.call('POST', `/dag/workflows/${id}/execute`, {}, other.headers), 404, 'workflow_not_found');
      for (const action of ['pause', 'resume', 'cancel']) {
        assertError(
          await api.call('POST', `/dag/executions/${execId}/${action}`, {}, other.headers),
          404,
          'execution_not_found',
        );
      }
      assertError(
        await api.call('GET', `/dag/executions/${execId}`, undefined, other.headers),
        404,
        'execution_not_found',
      );
      assert.equal((await api.call('GET', '/dag/executions', undefined, other.headers)).json().total, 0);
      assert.equal((await api.call('GET', '/dag/workflows', undefined, other.headers)).json().total, 0);
      assert.equal((await api.call('POST', `/dag/executions/${execId}/pause`)).statusCode, 200);
      const paused = (await eventsNamed(ctx(), tenant.tenantId, 'dag.execution.paused')).find(
        (e) => e.execution_id === execId,
      );
      assert.deepEqual(paused, {
        execution_id: execId,
        workflow_id: id,
        workflow_name: 'Slow',
        status: 'paused',
        paused_reason: 'manual',
      });
      const running = await api.execution(execId);
      assert.equal(running.current_node, 'wait');
      assert.deepEqual(running.nodes_pending, ['wait']);
      assert.equal(running.progress_percent, 0);
      assert.equal((await api.call('POST', `/dag/executions/${execId}/cancel`)).statusCode, 200);
      const stats = (await api.call('GET', `/dag/workflows/${id}`)).json().statistics;
      assert.deepEqual(stats, {
        total_executions: 1,
        successful: 0,
        failed: 0,
        in_progress: 0,
        avg_duration_seconds: 0,
      });
    });

    it('the workflow routes use the workflow rate-limit categories', async () => {
      const res = await api.call('GET', '/dag/workflows');
      assert.equal(res.headers['x-ratelimit-limit'], '60');
      const status = await api.call('GET', '/dag/executions');
      assert.equal(status.headers['x-ratelimit-limit'], '120');
      const tasks = await api.call('GET', '/dag/tasks');
      assert.equal(tasks.headers['x-ratelimit-limit'], '60');
    });

    it('Team: at most 50 workflows, then 403 TIER_LIMIT_EXCEEDED with the limit', async () => {
      const team = await createTenant(ctx(), { tier: 'team' });
      for (let i = 0; i < 50; i++)
        assert.equal(
          (await api.call('POST', '/dag/workflows', { name: `w${i}`, status: 'draft' }, team.headers)).statusCode,
          201,
        );
      const refused = assertError(
        await api.call('POST', '/dag/workflows', { name: 'w50', status: 'draft' }, team.headers),
        403,
        'tier_limit_exceeded',
      );
      assert.deepEqual(refused.details, { current_tier: 'team', limit: 50 });
    });

    it('Enterprise has no workflow or node limit', async () => {
      const enterprise = await createTenant(ctx(), { tier: 'enterprise' });
      const nodes = Array.from({ length: 150 }, (_, i) => ({ id: `n${i}`, type: 'parallel' }));
      const res = await api.call('POST', '/dag/workflows', { name: 'Big', nodes }, enterprise.headers);
      assert.equal(res.statusCode, 201, res.body);
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
