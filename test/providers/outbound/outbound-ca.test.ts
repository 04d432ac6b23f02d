import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startLocalMcpServer } from '../../modules/mcp/local-mcp-server.ts';
import { describeEachDialect, startTestApp, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { httpsReceiverUnavailable, startHttpsReceiver } from '../../support/https-receiver.ts';
import { workflowApi } from '../../modules/workflows/helpers.ts';

// OUTBOUND_EXTRA_CA_FILE is trusted by every guarded client (issue 26 item 8), not only webhooks':
// a workflow http_request node and a registered MCP server, both on HTTPS with a private CA.

const unavailable = httpsReceiverUnavailable();
if (unavailable) throw new Error(unavailable);
const receiver = await startHttpsReceiver();
const mcp = await startLocalMcpServer({ tls: { cert: receiver.caPem, key: receiver.keyPem } });
after(async () => {
  await mcp.close();
  await receiver.close();
});

/** Runs a one-node workflow calling `url`; answers the finished execution. */
async function callThroughWorkflow(t: TestApp, tenant: TestTenant, url: string) {
  const api = workflowApi(
    () => t,
    () => tenant.headers,
  );
  const id = await api.create({
    name: 'Private CA',
    nodes: [{ id: 'call', type: 'http_request', timeout_seconds: 5, config: { method: 'GET', url } }],
  });
  return api.finished(await api.run(id));
}

async function mcpTools(t: TestApp, tenant: TestTenant) {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/mcp/servers',
    headers: tenant.headers,
    payload: { name: `private-ca-${Date.now()}`, url: mcp.url },
  });
  assert.equal(created.statusCode, 201, created.body);
  return t.app.inject({ url: `/api/v1/mcp/servers/${created.json().id}/tools`, headers: tenant.headers });
}

describeEachDialect(
  'OUTBOUND_EXTRA_CA_FILE applies to every guarded client',
  (ctx) => {
    it('a workflow http_request node reaches an HTTPS server whose certificate only that file vouches for', async () => {
      const tenant = await createTenant(ctx(), { tier: 'team' });
      const before = receiver.requests.length;
      const done = await callThroughWorkflow(ctx(), tenant, `${receiver.url}/private-ca`);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.final_output.status, 200);
      assert.ok(receiver.requests.slice(before).some((r) => r.path === '/private-ca'));
    });

    it('so does a registered MCP server', async () => {
      const tenant = await createTenant(ctx(), { tier: 'team' });
      const res = await mcpTools(ctx(), tenant);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().tools.some((tool: { name: string }) => tool.name === 'add'));
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OUTBOUND_EXTRA_CA_FILE: receiver.caFile } },
);

describe('without OUTBOUND_EXTRA_CA_FILE the same calls are refused (the certificate is checked)', () => {
  it('fails the node and answers 502 for the MCP server', async () => {
    const t = await startTestApp('sqlite', { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    try {
      const tenant = await createTenant(t, { tier: 'team' });
      const done = await callThroughWorkflow(t, tenant, `${receiver.url}/untrusted`);
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.match(done.error, /certificate/i);
      assertError(await mcpTools(t, tenant), 502, 'bad_gateway');
    } finally {
      await t.close();
    }
  });
});
