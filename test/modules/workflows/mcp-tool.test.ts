import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type LocalMcpServer, startLocalMcpServer } from '../mcp/local-mcp-server.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

const TOKEN = 'mcp-workflow-token-0815';

/** The `mcp_tool` node against a small MCP server started with the official SDK. */
describeEachDialect(
  'workflow mcp_tool node',
  (ctx) => {
    let tenant: TestTenant;
    let mcp: LocalMcpServer;
    let serverId: string;
    const api = workflowApi(ctx, () => tenant.headers);
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      mcp = await startLocalMcpServer({ token: TOKEN });
      const res = await api.call('POST', '/mcp/servers', {
        name: 'tools',
        url: mcp.url,
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(res.statusCode, 201, res.body);
      serverId = res.json().id;
    });
    after(() => mcp.close());

    it('calls tools: structured output, text content, a tool error, a timeout, another tenant’s server', async () => {
      const id = await api.create({
        name: 'Tools',
        error_handling: { on_failure: 'continue' },
        nodes: [
          {
            id: 'add',
            type: 'mcp_tool',
            timeout_seconds: 20,
            config: { server_id: serverId, tool_name: 'add', parameters: { a: '{{trigger.a}}', b: 2 } },
          },
          {
            id: 'shout',
            type: 'mcp_tool',
            timeout_seconds: 20,
            config: { server_id: serverId, tool_name: 'shout', parameters: { text: 'sum {{nodes.add.output.sum}}' } },
            depends_on: ['add'],
          },
          {
            id: 'refuse',
            type: 'mcp_tool',
            timeout_seconds: 20,
            config: { server_id: serverId, tool_name: 'refuse', parameters: { reason: 'no' } },
          },
          {
            id: 'slow',
            type: 'mcp_tool',
            timeout_seconds: 1,
            config: { server_id: serverId, tool_name: 'slow', parameters: { ms: 5_000 } },
          },
          {
            id: 'unknown',
            type: 'mcp_tool',
            timeout_seconds: 5,
            config: { server_id: '01a00000-0000-7000-8000-000000000000', tool_name: 'add', parameters: {} },
          },
        ],
      });
      const done = await api.finished(await api.run(id, { a: 40 }), 30_000);
      const r = done.node_results;
      assert.deepEqual(r.add.output, { sum: 42 });
      assert.deepEqual(r.shout.output, [{ type: 'text', text: 'SUM 42' }]);
      assert.equal(r.refuse.status, 'failed');
      assert.match(r.refuse.error, /Node "refuse": .*refused: no/);
      assert.equal(r.slow.status, 'failed');
      assert.match(r.slow.error, /Node "slow"/);
      assert.equal(r.unknown.status, 'failed');
      assert.match(r.unknown.error, /Node "unknown"/);

      const other = await createTenant(ctx(), { tier: 'team' });
      const theirs = await api.call(
        'POST',
        '/dag/workflows',
        {
          name: 'Borrow',
          nodes: [
            {
              id: 'add',
              type: 'mcp_tool',
              timeout_seconds: 5,
              config: { server_id: serverId, tool_name: 'add', parameters: { a: 1, b: 1 } },
            },
          ],
        },
        other.headers,
      );
      const run = await api.call('POST', `/dag/workflows/${theirs.json().id}/execute`, {}, other.headers);
      await api.until(run.json().execution_id, ['completed', 'failed']);
      const borrowed = (
        await api.call('GET', `/dag/executions/${run.json().execution_id}`, undefined, other.headers)
      ).json();
      assert.equal(borrowed.status, 'failed', 'another tenant cannot call this tenant’s server');
      assert.match(borrowed.error, /not found/i);
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
