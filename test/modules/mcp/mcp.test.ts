import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';

const NOTE =
  'Onboarding checklist. New engineers receive a laptop on day one. Access to the staging cluster is granted by Priya Raman after the security training.';

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };

describeEachDialect(
  'MCP server for AI agents',
  (ctx) => {
    let base: string;
    let tenant: TestTenant;
    let documentId: string;
    const clients: Client[] = [];

    async function connect(headers: Record<string, string>): Promise<Client> {
      const client = new Client({ name: 'test-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
      clients.push(client);
      return client;
    }
    const text = (r: unknown) => (r as TextResult).content[0]!.text;

    before(async () => {
      await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx().app.server.address() as AddressInfo).port}`;
      tenant = await createTenant(ctx());
      documentId = await uploadOk(ctx(), tenant.headers, { filename: 'onboarding.txt', content: Buffer.from(NOTE) });
      await waitFor(
        async () =>
          (await ctx().app.inject({ url: `/api/v1/documents/${documentId}`, headers: tenant.headers })).json()
            .status === 'completed',
        'processing',
        30_000,
      );
    });

    it('lists its tools and reads documents as the caller', async () => {
      const client = await connect({ 'x-api-key': tenant.apiKey });
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const name of ['search', 'list_documents', 'get_document', 'get_content', 'ask'])
        assert.ok(names.includes(name), name);
      const listed = JSON.parse(text(await client.callTool({ name: 'list_documents', arguments: {} })));
      assert.deepEqual(
        listed.documents.map((d: { id: string }) => d.id),
        [documentId],
      );
      const doc = JSON.parse(
        text(await client.callTool({ name: 'get_document', arguments: { document_id: documentId } })),
      );
      assert.equal(doc.id, documentId);
      assert.equal(doc.status, 'completed');
      const content = JSON.parse(
        text(await client.callTool({ name: 'get_content', arguments: { document_id: documentId } })),
      );
      assert.match(content.content, /staging cluster/);
      const resources = await client.listResources();
      assert.ok(resources.resources.some((r) => r.uri === `document://${documentId}`));
      const read = await client.readResource({ uri: `document://${documentId}` });
      assert.match(String((read.contents[0] as { text: string }).text), /laptop on day one/);
    });

    it('searches what the caller may see, answering as GET /search does', async () => {
      const client = await connect({ 'x-api-key': tenant.apiKey });
      const found = JSON.parse(
        text(await client.callTool({ name: 'search', arguments: { query: 'staging cluster', mode: 'text' } })),
      );
      assert.deepEqual(
        found.results.map((r: { document: { id: string } }) => r.document.id),
        [documentId],
      );
      // `keyword` is accepted as another name for `text`, as on the REST API.
      const byKeyword = JSON.parse(
        text(await client.callTool({ name: 'search', arguments: { query: 'staging cluster', mode: 'keyword' } })),
      );
      assert.equal(byKeyword.mode, 'text');
      assert.deepEqual(byKeyword.results, found.results);
      const rest = (
        await ctx().app.inject({ url: '/api/v1/search?q=staging%20cluster&mode=text', headers: tenant.headers })
      ).json();
      assert.deepEqual(Object.keys(found).sort(), Object.keys(rest).sort());
      const other = await createTenant(ctx());
      const theirs = await connect({ 'x-api-key': other.apiKey });
      const none = JSON.parse(
        text(await theirs.callTool({ name: 'search', arguments: { query: 'staging cluster', mode: 'text' } })),
      );
      assert.deepEqual(none.results, []);
    });

    it('answers questions with citations and charges a credit, keeping one session', async () => {
      const client = await connect({ 'x-api-key': tenant.apiKey });
      const first = JSON.parse(
        text(
          await client.callTool({
            name: 'ask',
            arguments: { document_id: documentId, question: 'Who grants access to the staging cluster?' },
          }),
        ),
      );
      assert.match(first.answer, /Priya Raman/);
      assert.equal(first.citations[0].document_id, documentId);
      await client.callTool({
        name: 'ask',
        arguments: { document_id: documentId, question: 'What do new engineers receive on day one?' },
      });
      const sessions = (await ctx().app.inject({ url: '/api/v1/chat/sessions', headers: tenant.headers })).json();
      const mcp = sessions.data.filter((s: { name: string }) => s.name === 'AI agent (MCP)');
      assert.equal(mcp.length, 1);
      assert.equal(mcp[0].message_count, 4);
      const charges = await ctx()
        .container.database.db.selectFrom('ai_credit_charges')
        .select('reason')
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      assert.equal(charges.filter((c) => c.reason === 'chat_ask').length, 2);
    });

    it('sees exactly what the caller may see: other tenants and unshared documents are not found', async () => {
      const other = await createTenant(ctx());
      const theirs = await connect({ 'x-api-key': other.apiKey });
      const listed = JSON.parse(text(await theirs.callTool({ name: 'list_documents', arguments: {} })));
      assert.equal(listed.total, 0);
      const denied = (await theirs.callTool({
        name: 'get_content',
        arguments: { document_id: documentId },
      })) as TextResult;
      assert.equal(denied.isError, true);
      assert.match(denied.content[0]!.text, /NOT_FOUND/);
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      const asViewer = await connect(viewer.headers);
      const hidden = (await asViewer.callTool({
        name: 'get_document',
        arguments: { document_id: documentId },
      })) as TextResult;
      assert.equal(hidden.isError, true);
    });

    it('records a refusal inside a tool or a resource in the audit trail, like an HTTP refusal', async () => {
      const since = Date.now();
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      const asViewer = await connect(viewer.headers);
      for (const name of ['get_document', 'get_content']) {
        const refused = (await asViewer.callTool({ name, arguments: { document_id: documentId } })) as TextResult;
        assert.equal(refused.isError, true);
      }
      const resource = await asViewer.readResource({ uri: `document://${documentId}` }).then(
        () => null,
        (error: { code?: number }) => error,
      );
      assert.equal(resource?.code, -32002);
      // Another tenant naming the document: nothing of theirs exists, nothing was refused (as over HTTP).
      const other = await createTenant(ctx());
      const theirs = await connect({ 'x-api-key': other.apiKey });
      await theirs.callTool({ name: 'get_content', arguments: { document_id: documentId } });
      // A missing document: nothing refused either.
      await asViewer.callTool({
        name: 'get_content',
        arguments: { document_id: '0190f0f0-0000-7000-8000-000000000000' },
      });
      const db = ctx().container.database.db;
      const denials = (tenantId: string) =>
        db
          .selectFrom('audit_records')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('action', '=', 'access.denied')
          .where('at', '>=', since)
          .execute();
      const rows = await waitFor(async () => {
        await ctx().container.modules.use('audit').flush();
        const found = await denials(tenant.tenantId);
        return found.filter((r) => r.actor_id === viewer.userId).length >= 3 ? found : undefined;
      }, 'the refusals to be recorded');
      const viewers = rows.filter((r) => r.actor_id === viewer.userId);
      assert.deepEqual(viewers.map((r) => JSON.parse(r.details!).tool).sort(), [
        'get_content',
        'get_document',
        'resource',
      ]);
      for (const r of viewers) {
        assert.equal(r.actor_type, 'user');
        assert.equal(r.outcome, 'denied');
        assert.equal(r.status, 404);
        assert.equal(r.target_type, 'document');
        assert.equal(r.target_id, documentId);
        assert.equal(JSON.parse(r.details!).via, 'mcp');
        assert.ok(r.ip, 'the request’s origin is kept');
      }
      assert.equal(rows.length, viewers.length, 'the missing document is no refusal');
      assert.deepEqual(await denials(other.tenantId), []);
    });

    it('declares an output schema for every tool and returns structured content beside the text', async () => {
      const client = await connect({ 'x-api-key': tenant.apiKey });
      const { tools } = await client.listTools();
      for (const tool of tools) {
        assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an outputSchema`);
        assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} takes only its own arguments`);
      }
      const listed = (await client.callTool({ name: 'list_documents', arguments: { limit: 5 } })) as TextResult & {
        structuredContent: Record<string, unknown>;
      };
      assert.deepEqual(listed.structuredContent, JSON.parse(text(listed)));
      assert.equal(listed.structuredContent['total'], 1);
      const content = (await client.callTool({
        name: 'get_content',
        arguments: { document_id: documentId },
      })) as unknown as { structuredContent: { content: string } };
      assert.match(content.structuredContent.content, /staging cluster/);
      const doc = (await client.callTool({
        name: 'get_document',
        arguments: { document_id: documentId },
      })) as unknown as { structuredContent: { id: string } };
      assert.equal(doc.structuredContent.id, documentId);
    });

    it('refuses unknown arguments, naming the valid ones', async () => {
      const client = await connect({ 'x-api-key': tenant.apiKey });
      const refused = (await client.callTool({
        name: 'list_documents',
        arguments: { query: 'nothing like this' },
      })) as TextResult;
      assert.equal(refused.isError, true);
      assert.match(refused.content[0]!.text, /Unknown argument "query"; valid arguments: name, limit/);
      const wrongCase = (await client.callTool({ name: 'get_content', arguments: { documentId } })) as TextResult;
      assert.equal(wrongCase.isError, true);
      assert.match(wrongCase.content[0]!.text, /valid arguments: document_id, page/);
    });

    it('answers a missing or hidden resource with JSON-RPC error -32002', async () => {
      const client = await connect({ 'x-api-key': tenant.apiKey });
      const missing = await client.readResource({ uri: 'document://0190f0f0-0000-7000-8000-000000000000' }).then(
        () => null,
        (error: { code?: number }) => error,
      );
      assert.equal(missing?.code, -32002);
      const other = await createTenant(ctx());
      const theirs = await connect({ 'x-api-key': other.apiKey });
      const foreign = await theirs.readResource({ uri: `document://${documentId}` }).then(
        () => null,
        (error: { code?: number; message?: string }) => error,
      );
      assert.equal(foreign?.code, -32002);
      const unknownScheme = await client.readResource({ uri: 'file:///etc/passwd' }).then(
        () => null,
        (error: { code?: number }) => error,
      );
      assert.equal(unknownScheme?.code, -32002);
    });

    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': tenant.apiKey,
          ...headers,
        },
        body,
      });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });

    it('answers malformed JSON with the JSON-RPC parse error and id null', async () => {
      const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
      assert.equal(res.status, 400);
      const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number } };
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32700);
    });

    it('answers GET and DELETE with 405 (a stateless server has no stream and no session)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(`${base}/mcp`, {
          method,
          headers: { accept: 'text/event-stream', 'x-api-key': tenant.apiKey },
        });
        assert.equal(res.status, 405, method);
        assert.equal(res.headers.get('allow'), 'POST');
        assert.equal(((await res.json()) as { id: unknown }).id, null);
      }
    });

    it('checks Origin: its own and the tenant’s CORS origins pass, any other is 403', async () => {
      assert.equal((await post(initialize)).status, 200, 'no Origin (not a browser)');
      assert.equal((await post(initialize, { origin: base })).status, 200, 'the service’s own origin');
      const evil = await post(initialize, { origin: 'https://evil.example.com' });
      assert.equal(evil.status, 403);
      assert.equal(((await evil.json()) as { id: unknown }).id, null);
      const page = `https://agents-${tenant.subdomain}.example.com`;
      assert.equal((await post(initialize, { origin: page })).status, 403);
      await ctx().admin({
        method: 'PATCH',
        url: `/api/v1/admin/tenants/${tenant.tenantId}`,
        payload: { cors_origins: [page] },
      });
      assert.equal((await post(initialize, { origin: page })).status, 200, 'an origin the tenant allows');
    });

    it('refuses requests without credentials', async () => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(res.status, 401);
      for (const c of clients) await c.close();
    });
  },
  { worker: true },
);
