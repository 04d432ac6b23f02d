import assert from 'node:assert/strict';
import { it } from 'node:test';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';

/** If/else into a join with variables (the guide's examples run in guide-examples.test.ts). */
export const INVOICE_ROUTING = {
  name: 'Invoice routing',
  description: 'Large invoices go to finance review, small ones are approved automatically',
  trigger: { type: 'manual' },
  nodes: [
    { id: 'check_amount', type: 'condition', config: { expression: 'trigger.amount > 1000' } },
    {
      id: 'finance_review',
      type: 'set_variable',
      depends_on: ['check_amount'],
      run_if: 'nodes.check_amount.output.result',
      config: { name: 'route', value: 'finance' },
    },
    {
      id: 'auto_approve',
      type: 'set_variable',
      depends_on: ['check_amount'],
      run_if: '!nodes.check_amount.output.result',
      config: { name: 'route', value: 'auto' },
    },
    { id: 'merge', type: 'join', depends_on: ['finance_review', 'auto_approve'] },
    {
      id: 'summary',
      type: 'transform',
      depends_on: ['merge'],
      config: { expression: '{"invoice": $trigger.invoice, "amount": $trigger.amount, "route": $vars.route}' },
    },
  ],
};

describeEachDialect(
  'workflows',
  (ctx) => {
    let tenant: TestTenant;
    const call = (
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      url: string,
      payload?: unknown,
      headers: Record<string, string> = tenant.headers,
    ) =>
      ctx().app.inject({
        method,
        url: `/api/v1${url}`,
        headers,
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });
    const create = async (body: unknown) => {
      const res = await call('POST', '/dag/workflows', body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().id as string;
    };
    // Polls the row, then answers through the API: a 20 ms poll of the API itself spends the tenant's
    // 300 requests a minute in six seconds, after which every poll is a 429 (helpers.ts does the same).
    const finished = async (id: string) => {
      const db = ctx().container.database.db;
      await waitFor(
        async () =>
          ['completed', 'failed', 'cancelled'].includes(
            (await db.selectFrom('workflow_executions').select('status').where('id', '=', id).executeTakeFirst())
              ?.status ?? '',
          ),
        `execution ${id}`,
        20_000,
      );
      return (await call('GET', `/dag/executions/${id}`)).json();
    };
    const run = async (workflowId: string, triggerData: unknown = {}) => {
      const res = await call('POST', `/dag/workflows/${workflowId}/execute`, { trigger_data: triggerData });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().execution_id as string;
    };

    it('refuses tiers without workflows', async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      for (const tier of ['free', 'starter', 'pro']) {
        const other = await createTenant(ctx(), { tier });
        assertError(await call('GET', '/dag/workflows', undefined, other.headers), 403, 'tier_limit_exceeded');
        assertError(await call('POST', '/dag/workflows', { name: 'x' }, other.headers), 403, 'tier_limit_exceeded');
      }
    });

    it('refuses an invalid workflow at create and update with every error, unless saved as an explicit draft', async () => {
      const broken = {
        name: 'Broken',
        nodes: [
          { id: 'a', type: 'condition', config: {}, depends_on: ['b'] },
          { id: 'b', type: 'transform', config: { expression: '1' }, depends_on: ['a'] },
          { id: 'c', type: 'no_such_type' },
        ],
      };
      const refused = assertError(await call('POST', '/dag/workflows', broken), 400, 'invalid_workflow');
      const listed: string[] = refused.details.errors;
      assert.ok(listed.includes('Node "a" (condition) is missing config "expression"'), listed.join('\n'));
      assert.ok(
        listed.some((e) => /Circular dependency: (a -> b -> a|b -> a -> b)/.test(e)),
        listed.join('\n'),
      );
      assert.ok(listed.includes('Node "c" has unknown type "no_such_type"'), listed.join('\n'));
      assert.equal(
        (await call('GET', '/dag/workflows')).json().data.filter((w: { name: string }) => w.name === 'Broken').length,
        0,
        'nothing stored',
      );
      assertError(await call('POST', '/dag/workflows', { name: 'Empty' }), 400, 'invalid_workflow');

      // The same answer as the validate endpoint gives for the saved draft.
      const draft = await call('POST', '/dag/workflows', { ...broken, status: 'draft' });
      assert.equal(draft.statusCode, 201, draft.body);
      assert.equal(draft.json().status, 'draft');
      const validation = (await call('POST', `/dag/workflows/${draft.json().id}/validate`)).json();
      assert.deepEqual(validation.errors, listed);
      assertError(await call('POST', '/dag/workflows', { ...broken, status: 'active' }), 400, 'validation_error');

      const valid = await create({
        name: 'Valid',
        nodes: [{ id: 'a', type: 'condition', config: { expression: 'true' } }],
      });
      assert.equal(
        (await call('GET', `/dag/workflows/${valid}`)).json().status,
        'draft',
        'created as a draft all the same',
      );
      const change = assertError(
        await call('PUT', `/dag/workflows/${valid}`, { nodes: broken.nodes }),
        400,
        'invalid_workflow',
      );
      assert.deepEqual(change.details.errors, listed);
      assert.equal(
        (await call('GET', `/dag/workflows/${valid}`)).json().version,
        1,
        'the refused change stored nothing',
      );
      const kept = await call('PUT', `/dag/workflows/${valid}`, { nodes: broken.nodes, status: 'draft' });
      assert.equal(kept.statusCode, 200, kept.body);
      assert.equal(kept.json().version, 2);
      assert.equal(
        (await call('PUT', `/dag/workflows/${valid}`, { name: 'Renamed draft' })).statusCode,
        200,
        'a rename does not revalidate',
      );
      // Another tenant's draft is not reachable to update.
      const other = await createTenant(ctx(), { tier: 'team' });
      assertError(
        await call('PUT', `/dag/workflows/${valid}`, { nodes: broken.nodes, status: 'draft' }, other.headers),
        404,
        'workflow_not_found',
      );
    });

    it('creates, lists, versions, validates and moves through the lifecycle', async () => {
      const id = await create({
        name: 'Broken',
        status: 'draft',
        nodes: [
          { id: 'a', type: 'condition', config: {}, depends_on: ['b'] },
          { id: 'b', type: 'transform', config: { expression: '1' }, depends_on: ['a'] },
        ],
      });
      const validation = (await call('POST', `/dag/workflows/${id}/validate`)).json();
      assert.equal(validation.valid, false);
      assert.ok(validation.errors.includes('Node "a" (condition) is missing config "expression"'), validation.errors);
      assert.ok(
        validation.errors.some((e: string) => /Circular dependency: (a -> b -> a|b -> a -> b)/.test(e)),
        validation.errors,
      );
      const invalid = assertError(
        await call('PUT', `/dag/workflows/${id}`, { status: 'active' }),
        400,
        'invalid_workflow',
      );
      assert.ok(Array.isArray(invalid.details.errors) && invalid.details.errors.length >= 2);

      const fixed = await call('PUT', `/dag/workflows/${id}`, {
        nodes: [{ id: 'a', type: 'condition', config: { expression: 'true' } }],
        status: 'active',
      });
      assert.equal(fixed.statusCode, 200, fixed.body);
      assert.equal(fixed.json().version, 2);
      assert.equal(fixed.json().status, 'active');
      assert.equal(
        (await call('PUT', `/dag/workflows/${id}`, { name: 'Renamed' })).json().version,
        2,
        'a rename is not a new version',
      );
      assert.equal((await call('PUT', `/dag/workflows/${id}`, { status: 'paused' })).json().status, 'paused');
      assertError(await call('POST', `/dag/workflows/${id}/execute`, {}), 409, 'conflict');
      assert.equal((await call('PUT', `/dag/workflows/${id}`, { status: 'draft' })).json().status, 'draft');

      const list = (await call('GET', '/dag/workflows?status=draft')).json();
      const item = list.data.find((w: { id: string }) => w.id === id);
      assert.deepEqual([item.trigger_type, item.node_count, item.last_execution], ['manual', 1, null]);
      const got = (await call('GET', `/dag/workflows/${id}`)).json();
      assert.deepEqual(got.statistics, {
        total_executions: 0,
        successful: 0,
        failed: 0,
        in_progress: 0,
        avg_duration_seconds: 0,
      });

      const other = await createTenant(ctx(), { tier: 'team' });
      for (const [method, url] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/validate'],
        ['POST', '/execute'],
      ] as const) {
        const res = await call(
          method,
          `/dag/workflows/${id}${url}`,
          method === 'PUT' ? { name: 'x' } : method === 'POST' ? {} : undefined,
          other.headers,
        );
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
      }
      assert.equal((await call('DELETE', `/dag/workflows/${id}`)).statusCode, 200);
      assertError(await call('GET', `/dag/workflows/${id}`), 404, 'workflow_not_found');
    });

    it('enforces the Team node limit', async () => {
      const nodes = Array.from({ length: 101 }, (_, i) => ({ id: `n${i}`, type: 'parallel' }));
      assertError(await call('POST', '/dag/workflows', { name: 'Too big', nodes }), 403, 'tier_limit_exceeded');
    });

    it('runs if/else into a join, with variables and a JSONata summary, and records the events', async () => {
      const id = await create(INVOICE_ROUTING);
      assert.equal((await call('PUT', `/dag/workflows/${id}`, { status: 'active' })).statusCode, 200);
      const big = await finished(await run(id, { invoice: 'INV-1', amount: 5000 }));
      assert.equal(big.status, 'completed', JSON.stringify(big));
      assert.deepEqual(big.final_output, { invoice: 'INV-1', amount: 5000, route: 'finance' });
      assert.equal(big.node_results.auto_approve.status, 'skipped');
      assert.equal(big.node_results.merge.status, 'completed');
      assert.deepEqual(big.node_results.merge.output, { finance_review: { name: 'route', value: 'finance' } });
      assert.equal(big.progress_percent, 100);
      assert.deepEqual(big.nodes_pending, []);
      assert.deepEqual(big.nodes_completed.sort(), ['check_amount', 'finance_review', 'merge', 'summary']);

      const small = await finished(await run(id, { invoice: 'INV-2', amount: 20 }));
      assert.deepEqual(small.final_output, { invoice: 'INV-2', amount: 20, route: 'auto' });

      const rows = await ctx()
        .container.database.db.selectFrom('events')
        .selectAll()
        .where('tenant_id', '=', tenant.tenantId)
        .where('name', '=', 'dag.execution.completed')
        .execute();
      const data = rows.map((r) => JSON.parse(String(r.data))).find((d) => d.execution_id === big.id);
      assert.deepEqual(Object.keys(data).sort(), [
        'duration_seconds',
        'execution_id',
        'final_output',
        'status',
        'workflow_id',
        'workflow_name',
      ]);
      assert.equal(Number.isInteger(data.duration_seconds), true);
      assert.equal(data.status, 'completed');
      assert.equal(data.workflow_name, 'Invoice routing');

      const list = (await call('GET', `/dag/executions?workflow_id=${id}&status=completed`)).json();
      assert.equal(list.total, 2);
      const other = await createTenant(ctx(), { tier: 'team' });
      assertError(await call('GET', `/dag/executions/${big.id}`, undefined, other.headers), 404, 'execution_not_found');
      assertError(
        await call('POST', `/dag/executions/${big.id}/cancel`, {}, other.headers),
        404,
        'execution_not_found',
      );
      assert.equal((await call('GET', `/dag/executions?workflow_id=${id}`, undefined, other.headers)).json().total, 0);
      assert.ok(
        (await call('GET', '/dag/workflows')).json().data.find((w: { id: string }) => w.id === id).last_execution,
      );
    });

    it('switch, filter, aggregate, end; a draft runs as a test run', async () => {
      const id = await create({
        name: 'Items',
        nodes: [
          { id: 'kind', type: 'switch', config: { expression: 'trigger.kind', cases: ['invoice', 'receipt'] } },
          {
            id: 'big',
            type: 'filter',
            depends_on: ['kind'],
            config: { items: '{{trigger.items}}', condition: 'item.amount >= 10' },
          },
          {
            id: 'total',
            type: 'aggregate',
            depends_on: ['big'],
            config: { items: '{{nodes.big.output}}', expression: '$sum(amount)' },
          },
          {
            id: 'stop',
            type: 'end',
            depends_on: ['total'],
            config: {
              output: {
                case: '{{nodes.kind.output.case}}',
                total: '{{nodes.total.output}}',
                note: 'total {{nodes.total.output}}',
              },
            },
          },
          { id: 'never', type: 'transform', depends_on: ['kind'], config: { expression: '1' }, run_if: 'false' },
        ],
      });
      const res = await call('POST', `/dag/workflows/${id}/execute`, {
        trigger_data: { kind: 'invoice', items: [{ amount: 5 }, { amount: 10 }, { amount: 30 }] },
      });
      assert.equal(res.json().test_run, true);
      const done = await finished(res.json().execution_id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.final_output, { case: 'invoice', total: 40, note: 'total 40' });
      assert.deepEqual(done.node_results.big.output, [{ amount: 10 }, { amount: 30 }]);
    });

    it('a failing expression fails the execution naming the node; retries; on_failure continue', async () => {
      const id = await create({
        name: 'Fails',
        nodes: [
          {
            id: 'bad',
            type: 'condition',
            retry: { max_attempts: 2, backoff_seconds: 0 },
            config: { expression: 'trigger.missing.deep == 1' },
          },
        ],
      });
      const failed = await finished(await run(id, {}));
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failed_node_id, 'bad');
      assert.match(failed.error, /Node "bad": expression "trigger.missing.deep == 1" failed/);
      assert.equal(failed.node_results.bad.attempt, 2);

      const cont = await create({
        name: 'Continues',
        error_handling: { on_failure: 'continue' },
        nodes: [
          { id: 'bad', type: 'transform', config: { expression: '$error("boom")' } },
          { id: 'after', type: 'transform', depends_on: ['bad'], config: { expression: '1' } },
          {
            id: 'cleanup',
            type: 'transform',
            depends_on: ['bad'],
            trigger_rule: 'all_done',
            config: { expression: '"cleaned"' },
          },
        ],
      });
      const r = await finished(await run(cont, {}));
      assert.equal(r.status, 'completed', JSON.stringify(r));
      assert.equal(r.node_results.after.status, 'skipped');
      assert.equal(r.node_results.cleanup.output, 'cleaned');
    });

    it('pause, resume and cancel with the contract codes; a durable delay', async () => {
      const id = await create({
        name: 'Waits',
        nodes: [
          { id: 'wait', type: 'delay', timeout_seconds: 30, config: { seconds: 1 } },
          { id: 'after', type: 'transform', depends_on: ['wait'], config: { expression: '$trigger.n + 1' } },
        ],
      });
      const execId = await run(id, { n: 1 });
      const paused = await call('POST', `/dag/executions/${execId}/pause`);
      assert.equal(paused.statusCode, 200, paused.body);
      assert.equal(paused.json().status, 'paused');
      assert.equal(paused.json().can_resume, true);
      assertError(await call('POST', `/dag/executions/${execId}/pause`), 409, 'execution_not_pausable');
      assertError(await call('DELETE', `/dag/workflows/${id}`), 409, 'conflict');
      await new Promise((r) => setTimeout(r, 1_300));
      assert.equal((await call('GET', `/dag/executions/${execId}`)).json().status, 'paused');
      const resumed = await call('POST', `/dag/executions/${execId}/resume`, { modified_data: { n: 41 } });
      assert.equal(resumed.statusCode, 200, resumed.body);
      assert.equal(resumed.json().status, 'running');
      const done = await finished(execId);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.final_output, 42);
      assertError(await call('POST', `/dag/executions/${execId}/resume`), 409, 'execution_not_resumable');
      assertError(await call('POST', `/dag/executions/${execId}/cancel`), 409, 'execution_not_resumable');

      const second = await run(id, { n: 1 });
      const cancelled = await call('POST', `/dag/executions/${second}/cancel`, { reason: 'not needed' });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.deepEqual([cancelled.json().status, cancelled.json().reason], ['cancelled', 'not needed']);
      await new Promise((r) => setTimeout(r, 1_300));
      const after = (await call('GET', `/dag/executions/${second}`)).json();
      assert.equal(after.status, 'cancelled');
      assert.deepEqual([after.cancelled_at, after.reason], [cancelled.json().cancelled_at, 'not needed']);
      const listedRun = (await call('GET', `/dag/executions?workflow_id=${id}&status=cancelled`)).json().data[0];
      assert.deepEqual(
        [listedRun.id, listedRun.cancelled_at, listedRun.reason],
        [second, cancelled.json().cancelled_at, 'not needed'],
      );
      assert.equal('cancelled_at' in done, false, 'only a cancelled execution carries cancelled_at');
      assert.equal(after.node_results.after, undefined, 'nothing ran after the cancel');
      assertError(await call('POST', `/dag/executions/${second}/pause`), 409, 'execution_not_pausable');
    });
  },
  { worker: true },
);
