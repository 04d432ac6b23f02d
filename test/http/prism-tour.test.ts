import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import prismHttp from '@stoplight/prism-http';
import prismClient from '@stoplight/prism-http/dist/client.js';
import pino from 'pino';
import { multipart, tinyPdf } from '../modules/documents/helpers.ts';
import { waitFor } from '../jobs/helpers.ts';
import { type LocalMcpServer, startLocalMcpServer } from '../modules/mcp/local-mcp-server.ts';
import { ADMIN_KEY, describeEachDialect } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';

/*
 * A Prism validating proxy (Stoplight's, which client authors put in front of an API) between a
 * client and the running service, on a tour of every operation of the OpenAPI document: scripted
 * calls that succeed along the main paths, then one call to every operation the script did not
 * reach (ids that do not exist, empty bodies), whose error answers are validated the same way.
 * Every answer must fit the document: status, headers, media type and body.
 */

type Vars = Record<string, string>;
type Credential = 'key' | 'admin' | 'user' | 'none';
interface Step {
  /** `METHOD /path/{param}` exactly as the document has it. */
  op: string;
  params?: Vars | ((v: Vars) => Vars);
  query?: string;
  as?: Credential;
  body?: unknown | ((v: Vars) => unknown);
  /** A multipart body (uploads). */
  form?: () => { payload: Buffer; headers: Record<string, string> };
  headers?: Record<string, string> | ((v: Vars) => Record<string, string>);
  expect: number | number[];
  save?: (answer: { body: Record<string, unknown>; headers: Record<string, string> }, v: Vars) => void;
}

const NO_SUCH_ID = '0190f0f0-0000-7000-8000-000000000000';
const data = (body: Record<string, unknown>) => body['data'] as Record<string, string>[];

/** The main paths, in order: each step may use what earlier ones saved in `v`. */
function script(tenant: TestTenant, mcpServerUrl: string): Step[] {
  const note = Buffer.from('Quarterly board minutes. The budget was approved by Dana Whitfield on 3 March 2026.\n');
  return [
    { op: 'GET /healthz', as: 'none', expect: 200 },
    { op: 'GET /health', as: 'none', expect: 200 },
    { op: 'GET /readyz', as: 'none', expect: 200 },
    { op: 'GET /api/v1/openapi.json', as: 'none', expect: 200 },
    { op: 'GET /api/v1/admin/tenants', as: 'admin', expect: 200 },
    { op: 'GET /api/v1/admin/tenants/{tenant_id}', params: { tenant_id: tenant.tenantId }, as: 'admin', expect: 200 },
    {
      op: 'PATCH /api/v1/admin/tenants/{tenant_id}',
      params: { tenant_id: tenant.tenantId },
      as: 'admin',
      body: { cors_origins: ['https://tour.example.com'] },
      expect: 200,
    },
    {
      op: 'POST /api/v1/admin/tenants',
      as: 'admin',
      body: {
        name: 'Tour two',
        subdomain: `tour-${Date.now().toString(36)}`,
        owner: { email: 'two@tour.test', password: 'a long password 2', name: 'Two' },
      },
      expect: 201,
    },
    // Sign-in and the session's own calls.
    {
      op: 'POST /api/v1/auth/login',
      as: 'none',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      body: { email: tenant.ownerEmail, password: tenant.ownerPassword },
      expect: 200,
      save: ({ body }, v) => {
        v['access'] = String(body['access_token']);
        v['refresh'] = String(body['refresh_token']);
        v['csrf'] = String(body['csrf_token']);
      },
    },
    { op: 'GET /api/v1/auth/me', as: 'user', expect: 200 },
    { op: 'GET /api/v1/auth/csrf', as: 'user', expect: 200 },
    {
      op: 'GET /api/v1/auth/sessions',
      as: 'user',
      expect: 200,
      save: ({ body }, v) => (v['session'] = String(data(body)[0]?.['id'])),
    },
    {
      op: 'POST /api/v1/auth/password/forgot',
      as: 'none',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      body: { email: tenant.ownerEmail },
      expect: 202,
    },
    // API keys, users, workspaces.
    { op: 'GET /api/v1/api-keys', expect: 200 },
    {
      op: 'POST /api/v1/api-keys',
      body: { name: 'tour', environment: 'live' },
      expect: 201,
      save: ({ body }, v) => (v['key'] = String(body['id'])),
    },
    {
      op: 'POST /api/v1/api-keys/{id}/rotate',
      params: (v) => ({ id: v['key']! }),
      body: { grace_seconds: 0 },
      expect: 200,
    },
    { op: 'DELETE /api/v1/api-keys/{id}', params: (v) => ({ id: v['key']! }), expect: [200, 204] },
    { op: 'GET /api/v1/users', expect: 200 },
    {
      op: 'POST /api/v1/users',
      body: { email: 'member@tour.test', name: 'Member', role: 'member', password: 'a long password 3' },
      expect: 201,
      save: ({ body }, v) => (v['user'] = String(body['id'])),
    },
    {
      op: 'GET /api/v1/users/{id}',
      params: (v) => ({ id: v['user']! }),
      expect: 200,
      save: ({ headers }, v) => (v['userTag'] = headers['etag']!),
    },
    {
      op: 'GET /api/v1/users/{id}',
      params: (v) => ({ id: v['user']! }),
      headers: (v) => ({ 'if-none-match': v['userTag']! }),
      expect: 304,
    },
    { op: 'PATCH /api/v1/users/{id}', params: (v) => ({ id: v['user']! }), body: { name: 'Member Two' }, expect: 200 },
    { op: 'GET /api/v1/workspaces', expect: 200 },
    {
      op: 'POST /api/v1/workspaces',
      body: { name: 'Board' },
      expect: 201,
      save: ({ body }, v) => (v['workspace'] = String(body['id'])),
    },
    {
      op: 'POST /api/v1/workspaces/{id}/members',
      params: (v) => ({ id: v['workspace']! }),
      body: (v: Vars) => ({ user_id: v['user'] }),
      expect: [200, 201],
    },
    { op: 'GET /api/v1/workspaces/{id}', params: (v) => ({ id: v['workspace']! }), expect: 200 },
    {
      op: 'PUT /api/v1/workspaces/{id}',
      params: (v) => ({ id: v['workspace']! }),
      body: { name: 'Board of directors' },
      expect: 200,
    },
    {
      op: 'DELETE /api/v1/workspaces/{id}/members/{user_id}',
      params: (v) => ({ id: v['workspace']!, user_id: v['user']! }),
      expect: [200, 204],
    },
    // Folders, tags, documents.
    {
      op: 'POST /api/v1/folders',
      body: { name: 'Board papers' },
      expect: 201,
      save: ({ body }, v) => (v['folder'] = String(body['id'])),
    },
    { op: 'GET /api/v1/folders', expect: 200 },
    {
      op: 'GET /api/v1/folders/{id}',
      params: (v) => ({ id: v['folder']! }),
      expect: 200,
      save: ({ headers }, v) => (v['folderTag'] = headers['etag']!),
    },
    {
      op: 'PUT /api/v1/folders/{id}',
      params: (v) => ({ id: v['folder']! }),
      headers: (v) => ({ 'if-match': v['folderTag']! }),
      body: { color: '#112233' },
      expect: 200,
    },
    {
      op: 'PUT /api/v1/folders/{id}',
      params: (v) => ({ id: v['folder']! }),
      headers: (v) => ({ 'if-match': v['folderTag']! }),
      body: { color: '#445566' },
      expect: 412,
    },
    {
      op: 'POST /api/v1/tags',
      body: { name: 'minutes', color: '#AA3300' },
      expect: 201,
      save: ({ body }, v) => (v['tag'] = String(body['id'])),
    },
    { op: 'GET /api/v1/tags', expect: 200 },
    {
      op: 'POST /api/v1/documents/upload',
      form: () =>
        multipart([
          { name: 'tags', value: 'minutes' },
          { name: 'file', filename: 'minutes.txt', content: note, contentType: 'text/plain' },
        ]),
      expect: 201,
      save: ({ body }, v) => (v['doc'] = String(body['id'])),
    },
    {
      op: 'POST /api/v1/documents/upload-batch',
      form: () =>
        multipart([
          { name: 'files[]', filename: 'agenda.pdf', content: tinyPdf('Agenda'), contentType: 'application/pdf' },
          {
            name: 'files[]',
            filename: 'tool.exe',
            content: Buffer.from('MZ'),
            contentType: 'application/octet-stream',
          },
        ]),
      expect: 201,
      save: ({ body }, v) => {
        v['batch'] = String(body['batch_job_id']);
        v['pdf'] = String((body['documents'] as Record<string, string>[])[0]?.['id']);
      },
    },
    { op: 'GET /api/v1/batch-jobs', expect: 200 },
    { op: 'GET /api/v1/batch-jobs/{id}', params: (v) => ({ id: v['batch']! }), expect: 200 },
    { op: 'GET /api/v1/documents', query: 'page=1&page_size=10&sort=name&order=asc', expect: 200 },
    {
      op: 'GET /api/v1/documents/{id}',
      params: (v) => ({ id: v['doc']! }),
      expect: 200,
      save: ({ headers }, v) => (v['docTag'] = headers['etag']!),
    },
    {
      op: 'GET /api/v1/documents/{id}',
      params: (v) => ({ id: v['doc']! }),
      headers: (v) => ({ 'if-none-match': v['docTag']! }),
      expect: 304,
    },
    {
      op: 'GET /api/v1/documents/{id}/download',
      params: (v) => ({ id: v['doc']! }),
      expect: 200,
      save: ({ headers }, v) => (v['fileTag'] = headers['etag']!),
    },
    {
      op: 'GET /api/v1/documents/{id}/download',
      params: (v) => ({ id: v['doc']! }),
      headers: { range: 'bytes=0-9' },
      expect: 206,
    },
    {
      op: 'GET /api/v1/documents/{id}/download',
      params: (v) => ({ id: v['doc']! }),
      headers: { range: 'bytes=100000-' },
      expect: 416,
    },
    {
      op: 'GET /api/v1/documents/{id}/download',
      params: (v) => ({ id: v['doc']! }),
      headers: (v) => ({ 'if-none-match': v['fileTag']! }),
      expect: 304,
    },
    { op: 'GET /api/v1/documents/{id}/download', params: (v) => ({ id: v['pdf']! }), expect: 200 },
    // Versions: a second file for the agenda (the PDF, reprocessed and deleted later), its list, a version's download (ranges, validators) and a restore.
    {
      op: 'POST /api/v1/documents/{id}/versions',
      params: (v) => ({ id: v['pdf']! }),
      form: () =>
        multipart([
          {
            name: 'file',
            filename: 'minutes-v2.txt',
            content: Buffer.from('Minutes, corrected: the budget was approved.'),
            contentType: 'text/plain',
          },
        ]),
      expect: 201,
    },
    { op: 'GET /api/v1/documents/{id}/versions', params: (v) => ({ id: v['pdf']! }), expect: 200 },
    {
      op: 'GET /api/v1/documents/{id}/versions/{number}/download',
      params: (v) => ({ id: v['pdf']!, number: '1' }),
      expect: 200,
      save: ({ headers }, v) => (v['versionTag'] = headers['etag']!),
    },
    {
      op: 'GET /api/v1/documents/{id}/versions/{number}/download',
      params: (v) => ({ id: v['pdf']!, number: '1' }),
      headers: { range: 'bytes=0-9' },
      expect: 206,
    },
    {
      op: 'GET /api/v1/documents/{id}/versions/{number}/download',
      params: (v) => ({ id: v['pdf']!, number: '1' }),
      headers: (v) => ({ 'if-none-match': v['versionTag']! }),
      expect: 304,
    },
    {
      op: 'GET /api/v1/documents/{id}/versions/{number}/download',
      params: (v) => ({ id: v['pdf']!, number: '1' }),
      headers: { range: 'bytes=100000-' },
      expect: 416,
    },
    {
      op: 'POST /api/v1/documents/{id}/versions/{number}/restore',
      params: (v) => ({ id: v['pdf']!, number: '1' }),
      expect: 200,
    },
    { op: 'GET /api/v1/documents/{id}/thumbnail', params: (v) => ({ id: v['doc']! }), expect: 200 },
    { op: 'GET /api/v1/documents/{id}/content', params: (v) => ({ id: v['doc']! }), expect: 200 },
    {
      op: 'PUT /api/v1/documents/{id}',
      params: (v) => ({ id: v['doc']! }),
      body: (v: Vars) => ({ filename: 'board-minutes.txt', folder_id: v['folder'], tags: ['minutes', 'board'] }),
      expect: 200,
    },
    {
      op: 'POST /api/v1/documents/{id}/share',
      params: (v) => ({ id: v['doc']! }),
      body: (v: Vars) => ({ user_id: v['user'], permission: 'view' }),
      expect: 201,
      save: ({ body }, v) => (v['share'] = String(body['share_id'])),
    },
    { op: 'GET /api/v1/documents/{id}/shares', params: (v) => ({ id: v['doc']! }), expect: 200 },
    {
      op: 'DELETE /api/v1/documents/{id}/shares/{share_id}',
      params: (v) => ({ id: v['doc']!, share_id: v['share']! }),
      expect: [200, 204],
    },
    { op: 'POST /api/v1/documents/{id}/apply-ai-tags', params: (v) => ({ id: v['doc']! }), expect: 200 },
    { op: 'POST /api/v1/documents/{id}/reprocess', params: (v) => ({ id: v['pdf']! }), expect: 202 },
    { op: 'GET /api/v1/search', query: 'q=budget&mode=text', expect: 200 },
    { op: 'POST /api/v1/search/hybrid', body: { query: 'who approved the budget', limit: 5 }, expect: 200 },
    { op: 'POST /api/v1/search/enhanced', body: { query: 'who approved the budget' }, expect: 200 },
    // Chat.
    {
      op: 'POST /api/v1/chat/sessions',
      body: (v: Vars) => ({ document_id: v['doc'], name: 'Tour' }),
      expect: 201,
      save: ({ body }, v) => (v['chat'] = String(body['id'])),
    },
    {
      op: 'POST /api/v1/chat/sessions/{id}/ask',
      params: (v) => ({ id: v['chat']! }),
      body: { message: 'Who approved the budget?' },
      expect: 200,
    },
    { op: 'GET /api/v1/chat/sessions', expect: 200 },
    { op: 'GET /api/v1/chat/sessions/{id}', params: (v) => ({ id: v['chat']! }), expect: 200 },
    { op: 'GET /api/v1/chat/sessions/{id}/messages', params: (v) => ({ id: v['chat']! }), expect: 200 },
    { op: 'DELETE /api/v1/chat/sessions/{id}', params: (v) => ({ id: v['chat']! }), expect: 200 },
    // Agents: the MCP endpoint.
    {
      op: 'POST /mcp',
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tour', version: '1' } },
      },
      expect: 200,
    },
    // MCP servers the tenant registers (a local one speaking Streamable HTTP).
    {
      op: 'POST /api/v1/mcp/servers',
      body: { name: 'Calculator', url: mcpServerUrl },
      expect: 201,
      save: ({ body }, v) => (v['mcpServer'] = String(body['id'])),
    },
    { op: 'GET /api/v1/mcp/servers', expect: 200 },
    { op: 'GET /api/v1/mcp/servers/{id}', params: (v) => ({ id: v['mcpServer']! }), expect: 200 },
    { op: 'GET /api/v1/mcp/servers/{id}/tools', params: (v) => ({ id: v['mcpServer']! }), expect: 200 },
    { op: 'DELETE /api/v1/mcp/servers/{id}', params: (v) => ({ id: v['mcpServer']! }), expect: 200 },
    // Webhooks.
    {
      op: 'POST /api/v1/webhooks',
      body: { url: 'https://127.0.0.1:9/tour', events: ['document.processed'] },
      expect: 201,
      save: ({ body }, v) => (v['hook'] = String(body['id'])),
    },
    { op: 'GET /api/v1/webhooks', expect: 200 },
    { op: 'GET /api/v1/webhooks/{id}', params: (v) => ({ id: v['hook']! }), expect: 200 },
    { op: 'PUT /api/v1/webhooks/{id}', params: (v) => ({ id: v['hook']! }), body: { status: 'paused' }, expect: 200 },
    {
      op: 'POST /api/v1/webhooks/{id}/test',
      params: (v) => ({ id: v['hook']! }),
      expect: 202,
      save: ({ body }, v) => (v['delivery'] = String(body['id'])),
    },
    { op: 'GET /api/v1/webhooks/{id}/deliveries', params: (v) => ({ id: v['hook']! }), expect: 200 },
    {
      op: 'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver',
      params: (v) => ({ id: v['hook']!, delivery_id: v['delivery']! }),
      expect: 202,
    },
    { op: 'DELETE /api/v1/webhooks/{id}', params: (v) => ({ id: v['hook']! }), expect: 200 },
    // Workflows, executions, tasks.
    {
      op: 'POST /api/v1/dag/workflows',
      body: {
        name: 'Tour approval',
        trigger: { type: 'manual' },
        nodes: [
          {
            id: 'approve',
            type: 'human_approval',
            config: { assignee_type: 'role', assignee_value: 'admin', title: 'Approve', timeout_hours: 24 },
          },
          { id: 'done', type: 'end', depends_on: ['approve'], config: { status: 'completed' } },
        ],
      },
      expect: 201,
      save: ({ body }, v) => (v['workflow'] = String(body['id'])),
    },
    { op: 'GET /api/v1/dag/workflows', expect: 200 },
    {
      op: 'GET /api/v1/dag/workflows/{id}',
      params: (v) => ({ id: v['workflow']! }),
      expect: 200,
      save: ({ headers }, v) => (v['workflowTag'] = headers['etag']!),
    },
    {
      op: 'PUT /api/v1/dag/workflows/{id}',
      params: (v) => ({ id: v['workflow']! }),
      headers: (v) => ({ 'if-match': v['workflowTag']! }),
      body: { description: 'Approve board papers' },
      expect: 200,
    },
    { op: 'POST /api/v1/dag/workflows/{id}/validate', params: (v) => ({ id: v['workflow']! }), expect: 200 },
    {
      op: 'POST /api/v1/dag/workflows/{id}/execute',
      params: (v) => ({ id: v['workflow']! }),
      body: { trigger_data: { reason: 'tour' } },
      expect: 201,
      save: ({ body }, v) => (v['execution'] = String(body['execution_id'])),
    },
    { op: 'GET /api/v1/dag/executions', expect: 200 },
    { op: 'GET /api/v1/dag/executions/{id}', params: (v) => ({ id: v['execution']! }), expect: 200 },
    { op: 'POST /api/v1/dag/executions/{id}/pause', params: (v) => ({ id: v['execution']! }), expect: [200, 409] },
    {
      op: 'POST /api/v1/dag/executions/{id}/resume',
      params: (v) => ({ id: v['execution']! }),
      body: {},
      expect: [200, 409],
    },
    { op: 'GET /api/v1/dag/tasks', expect: 200, save: ({ body }, v) => (v['task'] = String(data(body)[0]?.['id'])) },
    { op: 'GET /api/v1/dag/tasks/{id}', params: (v) => ({ id: v['task']! }), expect: 200 },
    {
      op: 'POST /api/v1/dag/tasks/{id}/complete',
      params: (v) => ({ id: v['task']! }),
      body: { decision: 'approved', comments: 'fine' },
      expect: 200,
    },
    {
      op: 'POST /api/v1/dag/executions/{id}/cancel',
      params: (v) => ({ id: v['execution']! }),
      body: { reason: 'tour over' },
      expect: [200, 409],
    },
    // Subscription, imports, storage.
    { op: 'GET /api/v1/subscription/status', expect: 200 },
    { op: 'GET /api/v1/subscription/history', expect: 200 },
    {
      op: 'POST /api/v1/subscription/checkout',
      body: {
        tier: 'enterprise',
        success_url: 'https://tour.example.com/ok',
        cancel_url: 'https://tour.example.com/no',
      },
      expect: 201,
      save: ({ body }, v) => (v['checkout'] = String(body['checkout_id'])),
    },
    {
      op: 'GET /api/v1/subscription/checkouts/{checkout_id}',
      params: (v) => ({ checkout_id: v['checkout']! }),
      expect: 200,
    },
    {
      op: 'POST /api/v1/admin/checkouts/{checkout_id}/complete',
      params: (v) => ({ checkout_id: v['checkout']! }),
      as: 'admin',
      expect: 200,
    },
    {
      op: 'POST /api/v1/migrations/projects',
      body: { name: 'Drive', source_type: 'google_drive', config: { folder_ids: ['root'] } },
      expect: 201,
      save: ({ body }, v) => (v['project'] = String(body['id'])),
    },
    { op: 'GET /api/v1/migrations/projects', expect: 200 },
    { op: 'GET /api/v1/migrations/projects/{id}', params: (v) => ({ id: v['project']! }), expect: 200 },
    {
      op: 'PUT /api/v1/migrations/projects/{id}',
      params: (v) => ({ id: v['project']! }),
      body: { description: 'The shared drive' },
      expect: 200,
    },
    { op: 'GET /api/v1/migrations/projects/{id}/progress', params: (v) => ({ id: v['project']! }), expect: 200 },
    { op: 'GET /api/v1/migrations/projects/{id}/items', params: (v) => ({ id: v['project']! }), expect: 200 },
    {
      op: 'POST /api/v1/migrations/projects/{id}/agents',
      params: (v) => ({ id: v['project']! }),
      body: { agent_type: 'ai_tag', phase: 'post-import' },
      expect: 201,
    },
    { op: 'GET /api/v1/migrations/projects/{id}/agents', params: (v) => ({ id: v['project']! }), expect: 200 },
    { op: 'GET /api/v1/migrations/projects/{id}/agent-runs', params: (v) => ({ id: v['project']! }), expect: 200 },
    {
      op: 'GET /api/v1/admin/storage/config/{tenant_id}',
      params: { tenant_id: tenant.tenantId },
      as: 'admin',
      expect: 200,
    },
    {
      op: 'GET /api/v1/admin/storage/migrations/{tenant_id}/history',
      params: { tenant_id: tenant.tenantId },
      as: 'admin',
      expect: 200,
    },
    {
      op: 'GET /api/v1/admin/storage/migrations/{tenant_id}',
      params: { tenant_id: tenant.tenantId },
      as: 'admin',
      expect: 404,
    },
    // Clean-up calls, last.
    { op: 'DELETE /api/v1/documents/{id}', params: (v) => ({ id: v['pdf']! }), expect: 200 },
    { op: 'DELETE /api/v1/folders/{id}', params: (v) => ({ id: v['folder']! }), query: 'force=true', expect: 200 },
    { op: 'DELETE /api/v1/dag/workflows/{id}', params: (v) => ({ id: v['workflow']! }), expect: [200, 409] },
    {
      op: 'POST /api/v1/auth/register',
      as: 'none',
      body: {
        tenant_name: 'Tour three',
        subdomain: `tour3-${Date.now().toString(36)}`,
        email: 'three@tour.test',
        password: 'a long password 4',
        name: 'Three',
      },
      expect: 201,
    },
    { op: 'DELETE /api/v1/tags/{id}', params: (v) => ({ id: v['tag']! }), expect: [200, 204] },
    { op: 'DELETE /api/v1/users/{id}', params: (v) => ({ id: v['user']! }), expect: [200, 204] },
    { op: 'DELETE /api/v1/workspaces/{id}', params: (v) => ({ id: v['workspace']! }), expect: [200, 204] },
    {
      op: 'POST /api/v1/auth/refresh',
      as: 'none',
      body: (v: Vars) => ({ refresh_token: v['refresh'] }),
      expect: 200,
      save: ({ body }, v) => (v['access'] = String(body['access_token'])),
    },
    { op: 'DELETE /api/v1/auth/sessions/{id}', params: (v) => ({ id: v['session']! }), as: 'user', expect: [200, 204] },
    { op: 'POST /api/v1/auth/logout', as: 'user', expect: [200, 204, 401] },
  ];
}

describeEachDialect(
  'A Prism validating proxy on a tour of every operation',
  (ctx) => {
    let base: string;
    let doc: {
      paths: Record<
        string,
        Record<string, { security?: unknown[]; requestBody?: { content: Record<string, unknown> } }>
      >;
    };
    let client: ReturnType<typeof prismClient.createClientFromOperations>;
    let tenant: TestTenant;
    const vars: Vars = {};
    let mcpServer: LocalMcpServer;
    const toured = new Set<string>();
    const violations: string[] = [];

    before(async () => {
      await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx().app.server.address() as AddressInfo).port}`;
      doc = (await ctx().app.inject({ url: '/api/v1/openapi.json' })).json();
      const operations = await prismHttp.getHttpOperationsFromSpec(doc);
      client = prismClient.createClientFromOperations(operations, {
        mock: { dynamic: false },
        isProxy: true,
        upstream: new URL(base),
        upstreamProxy: undefined,
        validateRequest: true,
        validateResponse: true,
        checkSecurity: false,
        errors: false,
        logger: pino({ level: 'silent' }) as never,
      } as never);
      tenant = await createTenant(ctx(), { tier: 'team' });
      mcpServer = await startLocalMcpServer();
    });
    after(() => mcpServer?.close());

    const credentials = (as: Credential): Record<string, string> => {
      if (as === 'admin') return { authorization: `Bearer ${ADMIN_KEY}` };
      if (as === 'user')
        return {
          authorization: `Bearer ${vars['access']}`,
          'x-tenant-subdomain': tenant.subdomain,
          'x-csrf-token': vars['csrf'] ?? '',
        };
      if (as === 'key') return { 'x-api-key': tenant.apiKey };
      return {};
    };

    async function call(
      step: Step,
    ): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, string> }> {
      const [method, template] = step.op.split(' ') as [string, string];
      const params = typeof step.params === 'function' ? step.params(vars) : (step.params ?? {});
      const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? NO_SUCH_ID));
      const url = step.query ? `${path}?${step.query}` : path;
      const form = step.form?.();
      const body = typeof step.body === 'function' ? (step.body as (v: Vars) => unknown)(vars) : step.body;
      const headers = {
        ...credentials(step.as ?? 'key'),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...form?.headers,
        ...(typeof step.headers === 'function' ? step.headers(vars) : step.headers),
      };
      const res = await client.request(url, {
        method: method.toLowerCase(),
        headers,
        ...(form ? { body: form.payload.toString('latin1') } : body !== undefined ? { body } : {}),
      } as never);
      for (const v of res.violations.output)
        violations.push(`${step.op} → ${res.status}: ${v.path?.join('.') ?? ''} ${v.message}`);
      toured.add(step.op);
      return {
        status: res.status,
        body: (res.data ?? {}) as Record<string, unknown>,
        headers: res.headers as Record<string, string>,
      };
    }

    it('finds no response violation along the main paths', async () => {
      for (const step of script(tenant, mcpServer.url)) {
        // The document's conditional GET needs a document that stays as it is between the two
        // reads, and its content needs the text: both wait for processing to end (under load it can
        // still be running when the tour reaches them, and each stage changes the ETag).
        if (
          step.op === 'GET /api/v1/documents/{id}/content' ||
          (step.op === 'GET /api/v1/documents/{id}' && step.save)
        ) {
          const db = ctx().container.database.db;
          await waitFor(
            async () =>
              (await db.selectFrom('documents').select('status').where('id', '=', vars['doc']!).executeTakeFirst())
                ?.status === 'completed',
            'processing',
            30_000,
          );
        }
        // The execution reaches its approval step on the worker: the task list is read once a task exists.
        if (step.op === 'GET /api/v1/dag/tasks') {
          const db = ctx().container.database.db;
          await waitFor(
            async () =>
              (await db
                .selectFrom('workflow_tasks')
                .select('id')
                .where('execution_id', '=', vars['execution']!)
                .executeTakeFirst()) !== undefined,
            'approval task',
            30_000,
          );
        }
        const answer = await call(step);
        const expected = Array.isArray(step.expect) ? step.expect : [step.expect];
        assert.ok(
          expected.includes(answer.status),
          `${step.op} answered ${answer.status}, expected ${expected.join(' or ')}: ${JSON.stringify(answer.body).slice(0, 300)}`,
        );
        step.save?.(answer, vars);
      }
      assert.deepEqual(violations, []);
    });

    it('is a real check: it reports an answer that does not fit a (tampered) document', async () => {
      const tampered = structuredClone(doc) as unknown as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>
        >;
      };
      tampered.paths['/healthz']!['get']!.responses['200']!.content['application/json']!.schema = {
        type: 'object',
        required: ['status', 'uptime_weeks'],
        properties: { status: { type: 'integer' } },
      };
      const strict = prismClient.createClientFromOperations(await prismHttp.getHttpOperationsFromSpec(tampered), {
        mock: { dynamic: false },
        isProxy: true,
        upstream: new URL(base),
        upstreamProxy: undefined,
        validateRequest: true,
        validateResponse: true,
        checkSecurity: false,
        errors: false,
        logger: pino({ level: 'silent' }) as never,
      } as never);
      const res = await strict.request('/healthz', { method: 'get' } as never);
      assert.equal(res.status, 200);
      const found = res.violations.output.map((v) => v.message).join('; ');
      assert.match(found, /uptime_weeks/);
      assert.match(found, /integer/);
    });

    it('finds no response violation on any other operation, called with ids that do not exist', async () => {
      const methods = ['get', 'put', 'post', 'delete', 'patch'];
      const remaining = Object.entries(doc.paths).flatMap(([path, item]) =>
        methods
          .filter((m) => item[m] && !toured.has(`${m.toUpperCase()} ${path}`))
          .map((m) => ({ op: `${m.toUpperCase()} ${path}`, operation: item[m]! })),
      );
      assert.ok(remaining.length > 0);
      for (const { op, operation } of remaining) {
        const as: Credential = operation.security?.length === 0 ? 'none' : op.includes('/admin/') ? 'admin' : 'key';
        const json = operation.requestBody?.content['application/json'] !== undefined;
        await call({ op, as, ...(json ? { body: {} } : {}), expect: [] });
      }
      assert.deepEqual(violations, []);
      const all = Object.entries(doc.paths).flatMap(([path, item]) =>
        methods.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`),
      );
      assert.deepEqual(
        all.filter((op) => !toured.has(op)),
        [],
        'every operation of the document was called',
      );
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
