import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { AppError } from '../../../src/lib/errors.ts';
import { MCP_MAX_RESPONSE_BYTES } from '../../../src/modules/mcp/index.ts';
import { newId } from '../../../src/lib/ids.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { type LocalMcpServer, startLocalMcpServer } from './local-mcp-server.ts';

const TOKEN = 'mcp-secret-token-4711';

async function register(
  t: TestApp,
  headers: Record<string, string>,
  payload: Record<string, unknown>,
  prefix = '/api/v1',
) {
  return t.app.inject({ method: 'POST', url: `${prefix}/mcp/servers`, headers, payload });
}

async function registered(t: TestApp, tenant: TestTenant, url: string, name = `tools-${newId()}`): Promise<string> {
  const res = await register(t, tenant.headers, { name, url, headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

const callTool = (t: TestApp) =>
  t.container.modules.use('mcpServers').callTool.bind(t.container.modules.use('mcpServers'));

describeEachDialect(
  'MCP server registry',
  (ctx) => {
    let mcp: LocalMcpServer;
    let tenant: TestTenant;
    let serverId: string;

    before(async () => {
      mcp = await startLocalMcpServer({ token: TOKEN });
      tenant = await createTenant(ctx());
      serverId = await registered(ctx(), tenant, mcp.url, 'Local tools');
    });
    after(() => mcp.close());

    it('registers a server with its headers stored encrypted and shown masked', async () => {
      const t = ctx();
      const res = await register(t, tenant.headers, {
        name: 'Calculator',
        url: mcp.url,
        headers: { Authorization: `Bearer ${TOKEN}`, 'X-Team': 'ops' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(body.name, 'Calculator');
      assert.equal(body.url, mcp.url);
      assert.deepEqual(body.headers, { Authorization: '********', 'X-Team': '********' });
      assert.ok(!res.body.includes(TOKEN));
      const row = await t.container.database.db
        .selectFrom('mcp_servers')
        .selectAll()
        .where('id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.ok(
        row.headers_sealed && !row.headers_sealed.includes(TOKEN) && !row.headers_sealed.includes('ops'),
        'header values are sealed',
      );

      const got = await t.app.inject({ url: `/api/v1/mcp/servers/${body.id}`, headers: tenant.headers });
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), body);
      const list = await t.app.inject({ url: '/api/v1/mcp/servers?page_size=1&page=2', headers: tenant.headers });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().total, 2);
      assert.equal(list.json().page_size, 1);
      assert.deepEqual(
        list.json().data.map((s: { id: string }) => s.id),
        [body.id],
      );
    });

    it('lists the tools through the official client, sending the stored headers', async () => {
      const t = ctx();
      const seen = mcp.requests.length;
      const res = await t.app.inject({ url: `/api/v1/mcp/servers/${serverId}/tools`, headers: tenant.headers });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.server_id, serverId);
      assert.deepEqual(body.tools.map((tool: { name: string }) => tool.name).sort(), [
        'add',
        'flood',
        'refuse',
        'shout',
        'slow',
      ]);
      const add = body.tools.find((tool: { name: string }) => tool.name === 'add');
      assert.equal(add.title, 'Add two numbers');
      assert.deepEqual(Object.keys(add.input_schema.properties).sort(), ['a', 'b']);
      assert.ok(add.output_schema);
      const sent = mcp.requests.slice(seen);
      assert.ok(sent.length > 0 && sent.every((h) => h.authorization === `Bearer ${TOKEN}`));
    });

    it('calls tools: structuredContent, else content; a tool error names the tool', async () => {
      const t = ctx();
      assert.deepEqual(await callTool(t)(tenant.tenantId, serverId, 'add', { a: 2, b: 3 }), { sum: 5 });
      assert.deepEqual(await callTool(t)(tenant.tenantId, serverId, 'shout', { text: 'hi' }), [
        { type: 'text', text: 'HI' },
      ]);
      await assert.rejects(
        callTool(t)(tenant.tenantId, serverId, 'refuse', { reason: 'no budget' }),
        (error: Error) => {
          assert.match(error.message, /"refuse"/);
          assert.match(error.message, /refused: no budget/);
          return true;
        },
      );
      await assert.rejects(callTool(t)(tenant.tenantId, serverId, 'nonexistent', {}), /"nonexistent"/);
    });

    it('times out a slow tool, and stops when the caller aborts', async () => {
      const t = ctx();
      await assert.rejects(
        callTool(t)(tenant.tenantId, serverId, 'slow', { ms: 5_000 }, { timeoutMs: 300 }),
        (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.error, 'gateway_timeout');
          return true;
        },
      );
      const controller = new AbortController();
      const call = callTool(t)(tenant.tenantId, serverId, 'slow', { ms: 5_000 }, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('execution cancelled')), 100);
      await assert.rejects(call, /execution cancelled/);
    });

    it('answers 502 when the server refuses or cannot be reached', async () => {
      const t = ctx();
      const noToken = await register(t, tenant.headers, { name: 'Without token', url: mcp.url });
      assert.equal(noToken.statusCode, 201, noToken.body);
      const unauthorized = await t.app.inject({
        url: `/api/v1/mcp/servers/${noToken.json().id}/tools`,
        headers: tenant.headers,
      });
      assertError(unauthorized, 502, 'bad_gateway');

      const down = await startLocalMcpServer();
      const downId = await registered(t, tenant, down.url);
      await down.close();
      const res = await t.app.inject({ url: `/api/v1/mcp/servers/${downId}/tools`, headers: tenant.headers });
      assertError(res, 502, 'bad_gateway');
      await assert.rejects(
        callTool(t)(tenant.tenantId, downId, 'add', { a: 1, b: 1 }),
        (error: unknown) => error instanceof AppError && error.status === 502,
      );
    });

    it('reads at most MCP_MAX_RESPONSE_BYTES of an answer: a larger one is a 502, the process unharmed', async () => {
      const t = ctx();
      const id = await registered(t, tenant, mcp.url);
      const fits = await callTool(t)(tenant.tenantId, id, 'flood', { bytes: 1000 });
      assert.equal((fits as { text: string }[])[0]!.text.length, 1000);
      await assert.rejects(
        callTool(t)(tenant.tenantId, id, 'flood', { bytes: MCP_MAX_RESPONSE_BYTES + 1 }),
        (error: unknown) =>
          error instanceof AppError &&
          error.status === 502 &&
          /larger than/.test(error.message) &&
          error.details?.reason === 'response_too_large',
      );
    });

    it('validates registrations', async () => {
      const t = ctx();
      const h = tenant.headers;
      assertError(await register(t, h, { url: mcp.url }), 400, 'validation_error');
      assertError(await register(t, h, { name: 'x', url: mcp.url, extra: 1 }), 400, 'validation_error');
      assertError(await register(t, h, { name: '   ', url: mcp.url }), 400, 'validation_error');
      assertError(await register(t, h, { name: 'x', url: 'ftp://example.com/mcp' }), 400, 'invalid_url');
      assertError(await register(t, h, { name: 'x', url: 'not a url' }), 400, 'invalid_url');
      assertError(
        await register(t, h, { name: 'x', url: mcp.url, headers: { 'Content-Type': 'text/plain' } }),
        400,
        'validation_error',
      );
      assertError(
        await register(t, h, { name: 'x', url: mcp.url, headers: { 'Mcp-Session-Id': 'abc' } }),
        400,
        'validation_error',
      );
      assertError(
        await register(t, h, { name: 'x', url: mcp.url, headers: { 'bad name': 'v' } }),
        400,
        'validation_error',
      );
      assertError(
        await register(t, h, { name: 'x', url: mcp.url, headers: { 'X-A': 'line\r\nX-B: smuggled' } }),
        400,
        'validation_error',
      );
      assertError(
        await register(t, h, { name: 'x', url: mcp.url, headers: { 'X-A': 'a', 'x-a': 'b' } }),
        400,
        'validation_error',
      );
      const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
      assertError(await register(t, h, { name: 'x', url: mcp.url, headers: many }), 400, 'validation_error');
      assertError(await register(t, h, { name: 'local TOOLS', url: mcp.url }), 409, 'conflict');
    });

    it('lets owners, admins and API keys register and delete; members only read', async () => {
      const t = ctx();
      const member = await loginAs(t, tenant, 'member');
      assertError(await register(t, member.headers, { name: 'Mine', url: mcp.url }), 403, 'forbidden');
      const list = await t.app.inject({ url: '/api/v1/mcp/servers', headers: member.headers });
      assert.equal(list.statusCode, 200);
      assert.ok(list.json().data.some((s: { id: string }) => s.id === serverId));
      const del = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/mcp/servers/${serverId}`,
        headers: member.headers,
      });
      assertError(del, 403, 'forbidden');
      const admin = await loginAs(t, tenant, 'admin');
      const created = await register(t, admin.headers, { name: 'Admin tools', url: mcp.url });
      assert.equal(created.statusCode, 201, created.body);
    });

    it('is a Team feature', async () => {
      const t = ctx();
      const starter = await createTenant(t, { tier: 'starter' });
      const res = assertError(
        await register(t, starter.headers, { name: 'x', url: mcp.url }),
        403,
        'tier_limit_exceeded',
      );
      assert.equal(res.details.required_tier, 'team');
      assertError(
        await t.app.inject({ url: '/api/v1/mcp/servers', headers: starter.headers }),
        403,
        'tier_limit_exceeded',
      );
    });

    it("hides another tenant's servers (404) and their tools", async () => {
      const t = ctx();
      const other = await createTenant(t);
      for (const [method, url] of [
        ['GET', `/api/v1/mcp/servers/${serverId}`],
        ['GET', `/api/v1/mcp/servers/${serverId}/tools`],
        ['DELETE', `/api/v1/mcp/servers/${serverId}`],
      ] as const) {
        assertError(await t.app.inject({ method, url, headers: other.headers }), 404, 'not_found');
      }
      const list = await t.app.inject({ url: '/api/v1/mcp/servers', headers: other.headers });
      assert.equal(list.json().total, 0);
      await assert.rejects(
        callTool(t)(other.tenantId, serverId, 'add', { a: 1, b: 2 }),
        (error: unknown) => error instanceof AppError && error.error === 'not_found',
      );
      await assert.rejects(
        callTool(t)(tenant.tenantId, newId(), 'add', { a: 1, b: 2 }),
        (error: unknown) => error instanceof AppError && error.error === 'not_found',
      );
      // The same name is free in another tenant.
      assert.equal((await register(t, other.headers, { name: 'Local tools', url: mcp.url })).statusCode, 201);
    });

    it('deletes a server', async () => {
      const t = ctx();
      const id = await registered(t, tenant, mcp.url);
      const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/mcp/servers/${id}`, headers: tenant.headers });
      assert.equal(del.statusCode, 200, del.body);
      assertError(await t.app.inject({ url: `/api/v1/mcp/servers/${id}`, headers: tenant.headers }), 404, 'not_found');
      assertError(
        await t.app.inject({ method: 'DELETE', url: `/api/v1/mcp/servers/${id}`, headers: tenant.headers }),
        404,
        'not_found',
      );
      await assert.rejects(
        callTool(t)(tenant.tenantId, id, 'add', { a: 1, b: 2 }),
        (error: unknown) => error instanceof AppError && error.status === 404,
      );
    });

    it("keeps sandbox servers apart and clears them with the sandbox's reset", async () => {
      const t = ctx();
      const sandbox = { 'x-api-key': tenant.testApiKey };
      const res = await register(t, sandbox, { name: 'Sandbox tools', url: mcp.url }, '/sandbox/api/v1');
      assert.equal(res.statusCode, 201, res.body);
      assertError(
        await t.app.inject({ url: `/api/v1/mcp/servers/${res.json().id}`, headers: tenant.headers }),
        404,
        'not_found',
      );
      const db = t.container.database.db;
      const twin = await db
        .selectFrom('tenants')
        .select('id')
        .where('sandbox_of', '=', tenant.tenantId)
        .executeTakeFirstOrThrow();
      await db.transaction().execute(async (trx) => {
        for (const cleanup of t.container.modules.sandboxCleanups) await cleanup(trx, twin.id);
      });
      const after = await t.app.inject({ url: '/sandbox/api/v1/mcp/servers', headers: sandbox });
      assert.equal(after.json().total, 0);
      assert.equal(
        (await t.app.inject({ url: `/api/v1/mcp/servers/${serverId}`, headers: tenant.headers })).statusCode,
        200,
      );
    });
  },
  { env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);

describeEachDialect('MCP server registry without private network targets', (ctx) => {
  it('refuses private addresses when registering and again when connecting', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const mcp = await startLocalMcpServer();
    try {
      assertError(await register(t, tenant.headers, { name: 'Loopback', url: mcp.url }), 400, 'invalid_url');
      assertError(
        await register(t, tenant.headers, { name: 'Metadata', url: 'http://169.254.169.254/mcp' }),
        400,
        'invalid_url',
      );
      // A server saved while its name pointed elsewhere (DNS rebinding): the connect-time guard refuses it.
      const now = Date.now();
      const id = newId(now);
      await t.container.database.db
        .insertInto('mcp_servers')
        .values({
          id,
          tenant_id: tenant.tenantId,
          name: 'Rebound',
          name_key: 'rebound',
          url: mcp.url,
          headers_sealed: null,
          header_names: '[]',
          created_by: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const res = assertError(
        await t.app.inject({ url: `/api/v1/mcp/servers/${id}/tools`, headers: tenant.headers }),
        502,
        'bad_gateway',
      );
      assert.equal(res.details.reason, 'blocked_address');
      assert.equal(mcp.requests.length, 0, 'nothing reached the server');
    } finally {
      await mcp.close();
    }
  });
});
