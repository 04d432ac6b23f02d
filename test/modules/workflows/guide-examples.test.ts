import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { type LocalMcpServer, startLocalMcpServer } from '../mcp/local-mcp-server.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { guideExamples, mailTo, messageOf, startReceiver, workflowApi } from './helpers.ts';

/** The examples of docs/workflows.md, read from the guide and run as written. */
describeEachDialect(
  'workflow guide examples',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    const examples = guideExamples();
    let approvals: Awaited<ReturnType<typeof startReceiver>>;
    let mcp: LocalMcpServer;
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      approvals = await startReceiver((req) => ({
        status: 201,
        body: { ticket: `T-${JSON.parse(req.body).invoice}` },
      }));
      mcp = await startLocalMcpServer();
    });
    after(async () => {
      await approvals.close();
      await mcp.close();
    });
    const taskOf = async (executionId: string) => {
      await api.until(executionId, ['paused']);
      const row = await ctx()
        .container.database.db.selectFrom('workflow_tasks')
        .select('id')
        .where('execution_id', '=', executionId)
        .executeTakeFirstOrThrow();
      return (await api.call('GET', `/dag/tasks/${row.id}`)).json();
    };

    it('the guide has the six examples', () => {
      assert.deepEqual(Object.keys(examples).sort(), [
        'classify-uploads',
        'expense-approval',
        'invoice-approval',
        'mcp-score',
        'order-lines',
        'weekday-digest',
      ]);
    });

    it('invoice approval routing: large invoices call the approvals system, small ones do not', async () => {
      const id = await api.create(examples['invoice-approval'], true);
      const approvalsUrl = `${approvals.url}/approvals`;
      const big = await api.finished(
        await api.run(id, { invoice: 'INV-1', amount: 5000, approvals_url: approvalsUrl }),
      );
      assert.equal(big.status, 'completed', JSON.stringify(big));
      assert.deepEqual(big.final_output, { invoice: 'INV-1', amount: 5000, route: 'finance', ticket: 'T-INV-1' });
      assert.equal(big.node_results.auto_approve.status, 'skipped');
      assert.equal(approvals.requests.length, 1);
      const sent = approvals.requests[0]!;
      assert.deepEqual(JSON.parse(sent.body), { invoice: 'INV-1', amount: 5000, reason: 'amount over 1000' });
      assert.equal(sent.headers['idempotency-key'], `${big.id}:finance_review:0`);

      const small = await api.finished(
        await api.run(id, { invoice: 'INV-2', amount: 20, approvals_url: approvalsUrl }),
      );
      assert.deepEqual(small.final_output, { invoice: 'INV-2', amount: 20, route: 'auto' });
      assert.equal(small.node_results.finance_review.status, 'skipped');
      assert.equal(approvals.requests.length, 1, 'no call for a small invoice');
    });

    it('order lines: a loop and a filter in parallel, joined, aggregated', async () => {
      const id = await api.create(examples['order-lines'], true);
      const lines = [
        { sku: 'A', qty: 2, price: 10, stock: 5 },
        { sku: 'B', qty: 3, price: 4, stock: 1 },
      ];
      const done = await api.finished(await api.run(id, { lines }));
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.final_output, {
        total: 32,
        lines: [
          { sku: 'A', total: 20 },
          { sku: 'B', total: 12 },
        ],
        backordered: [lines[1]],
      });
      assert.deepEqual(Object.keys(done.node_results.merge.output).sort(), ['backorders', 'price_lines']);
      const tooMany = await api.finished(await api.run(id, { lines: Array.from({ length: 501 }, () => lines[0]) }));
      assert.equal(tooMany.status, 'failed');
      assert.match(tooMany.error, /501 items exceed max_iterations 500/);
    });

    it('weekday digest: validates with its schedule trigger, arms the next tick, and sends the digest', async () => {
      const id = await api.create(examples['weekday-digest'], true);
      const row = await ctx()
        .container.database.db.selectFrom('workflows')
        .select('next_run_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(row.next_run_at && row.next_run_at > Date.now(), 'the next tick is stored');
      const berlin = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
        weekday: 'short',
      }).format(new Date(Number(row.next_run_at)));
      assert.match(berlin, /^(Mon|Tue|Wed|Thu|Fri) 08:00$/);
      const done = await api.finished(await api.run(id, { scheduled_for: '2026-11-26T07:00:00.000Z' }));
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const mail = await mailTo(ctx(), tenant.tenantId, 'ops@example.com');
      assert.equal(mail.length, 1);
      assert.equal(mail[0]!.subject, 'Digest for 2026-11-26');
      assert.equal(messageOf(mail[0]!.body), 'Good morning. This digest was scheduled for 2026-11-26T07:00:00.000Z.');
    });

    it('expense approval: a task with escalation and expiry times; modified books the new amount; rejected mails', async () => {
      const manager = await loginAs(ctx(), tenant, 'member', {
        roles: ['finance_manager'],
        email: `fm-${tenant.subdomain}@example.com`,
      });
      const id = await api.create(examples['expense-approval'], true);
      const trigger = { reference: 'EXP-1', employee: 'Ann', employee_email: 'ann@example.com', amount: 120 };
      const first = await api.run(id, trigger);
      const task = await taskOf(first);
      assert.equal((await api.execution(first)).paused_reason, 'awaiting_approval');
      assert.deepEqual(
        [task.title, task.description, task.assignee_value, task.data],
        ['Approve expense EXP-1', 'Ann claims 120', 'finance_manager', { amount: 120 }],
      );
      assert.equal(Date.parse(task.due_at) - Date.parse(task.escalation_at), 24 * 3_600_000);
      const modified = await api.call(
        'POST',
        `/dag/tasks/${task.id}/complete`,
        { decision: 'modified', modified_data: { amount: 100 } },
        manager.headers,
      );
      assert.equal(modified.statusCode, 200, modified.body);
      const booked = await api.finished(first);
      assert.deepEqual(booked.node_results.book.output, { booked: 100, decision: 'modified' });
      assert.equal(booked.node_results.tell_employee.status, 'skipped');

      const second = await api.run(id, { ...trigger, reference: 'EXP-2' });
      const again = await taskOf(second);
      assert.equal(
        (
          await api.call(
            'POST',
            `/dag/tasks/${again.id}/complete`,
            { decision: 'rejected', comments: 'No receipt' },
            manager.headers,
          )
        ).statusCode,
        200,
      );
      const rejected = await api.finished(second);
      assert.equal(rejected.node_results.book.status, 'skipped');
      const mail = await mailTo(ctx(), tenant.tenantId, 'ann@example.com');
      assert.deepEqual(
        mail.map((m) => [m.subject, messageOf(m.body)]),
        [['Expense EXP-2 rejected', 'No receipt']],
      );
    });

    it('classify uploads: an invoice uploaded under /Inbox is classified and its fields extracted', async () => {
      const inbox = (await api.call('POST', '/folders', { name: 'Inbox' })).json();
      const year = (await api.call('POST', '/folders', { name: '2026', parent_id: inbox.id })).json();
      const id = await api.create(examples['classify-uploads'], true);
      const text = [
        'Invoice number: INV-2044',
        'Vendor: Acme Corporation',
        'Total: USD 1,250.00',
        'Due date: 2026-03-15',
        'Payment of the invoice total is due to the vendor within 30 days.',
      ].join('\n');
      await uploadOk(ctx(), tenant.headers, {
        filename: 'invoice.txt',
        content: Buffer.from(text),
        fields: { folder_id: year.id },
      });
      const db = ctx().container.database.db;
      const row = await waitFor(
        async () =>
          (await db.selectFrom('workflow_executions').select('id').where('workflow_id', '=', id).executeTakeFirst()) ??
          false,
        'the triggered execution',
        30_000,
      );
      const done = await api.finished(row.id, 60_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.final_output, {
        document: 'invoice.txt',
        category: 'invoice',
        fields: { invoice_number: 'INV-2044', total: 1250, due_date: '2026-03-15' },
      });
    });

    it('an MCP tool call feeds a condition', async () => {
      const server = await api.call('POST', '/mcp/servers', { name: 'scoring', url: mcp.url });
      assert.equal(server.statusCode, 201, server.body);
      const id = await api.create(examples['mcp-score'], true);
      const done = await api.finished(await api.run(id, { server_id: server.json().id, base: 90, bonus: 15 }), 30_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.node_results.score.output, { sum: 105 });
      assert.deepEqual(done.final_output, { result: true });
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
