import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { multipart, uploadOk } from '../modules/documents/helpers.ts';
import { waitFor } from '../jobs/helpers.ts';
import { describeEachDialect, type TestApp } from '../support/app.ts';
import { createTenant, type LoggedInUser, loginAs, type TestTenant } from '../support/fixtures.ts';

/*
 * The role matrix (issue 26, docs/security.md "Access inside a tenant"): every route of the served
 * OpenAPI document that names an object — a path parameter, or a body field `*_id` / `*_ids` — is
 * called by every role on objects another user owns (alice, a member, or the tenant's API key for
 * tenant-wide objects), and answers what the documents say. A route missing here fails the test,
 * so a new route cannot be forgotten.
 *
 * Each case builds its request for the role just before calling; cases that change or delete
 * build a fresh object each time, so every role meets the same starting point.
 */

// Refused roles first: an `intact` check after a refusal still sees the object as seeded.
const ROLES = ['viewer', 'custom', 'member', 'admin', 'owner', 'key'] as const;
type Role = (typeof ROLES)[number];
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `ok`: any 2xx. `reached`: past every access check, refused by the object's state or an upstream (not 401/403/404). */
type Expect = { status: number | 'ok' | 'reached'; error?: string };
const ok: Expect = { status: 'ok' };
const reached: Expect = { status: 'reached' };
const hidden = (error = 'not_found'): Expect => ({ status: 404, error });
const refused = (error = 'forbidden'): Expect => ({ status: 403, error });
const unauthorized: Expect = { status: 401, error: 'unauthorized' };

/** Tenant administrators (owner, admin, API key) get `admins`; members and custom roles `members`; viewers `viewer`. */
function by(admins: Expect, members: Expect, viewer: Expect = members): Record<Role, Expect> {
  return { owner: admins, admin: admins, key: admins, member: members, custom: members, viewer };
}
const everyone = (e: Expect) => by(e, e, e);

interface Request {
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
}
interface Case {
  request: (role: Role) => Promise<Request>;
  expect: Record<Role, Expect>;
  /** Checked after a refused call: the object is as it was. */
  intact?: (request: Request) => Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** Every "METHOD path" of the OpenAPI document that names an object by a path parameter or a body `*_id(s)` field. */
function routesNamingObjects(doc: Json): string[] {
  const out: string[] = [];
  const namesIds = (schema: unknown): boolean => JSON.stringify(schema ?? {}).match(/"[a-z_]+_ids?":/) !== null;
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(operations)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (path.includes('{') || namesIds(body?.properties)) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

describeEachDialect(
  'security: role matrix inside a tenant',
  (ctx) => {
    let t: TestApp;
    let tenant: TestTenant;
    const users = {} as Record<Exclude<Role, 'key'>, LoggedInUser>;
    let alice: LoggedInUser;
    let bob: LoggedInUser;
    const headersOf = (role: Role) => (role === 'key' ? tenant.headers : users[role].headers);
    const call = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    /** A call that must succeed, answering its JSON. */
    const made = async (
      method: Method,
      url: string,
      headers: Record<string, string>,
      payload?: unknown,
    ): Promise<Json> => {
      const res = await call(method, url, headers, payload);
      assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
      return res.body === '' ? {} : res.json();
    };
    const db = () => t.container.database.db;

    // Objects of alice (a member) and of the tenant's API key, made once; `fresh` makes one per call.
    const fx = {} as Record<string, string>;
    const processed = async (id: string) => {
      await waitFor(
        async () =>
          (await db().selectFrom('documents').select('status').where('id', '=', id).executeTakeFirst())?.status ===
          'completed',
        `document ${id} processed`,
        30_000,
      );
      return id;
    };
    const fresh = {
      document: async () =>
        uploadOk(t, alice.headers, {
          filename: `doc-${Math.random()}.txt`,
          content: Buffer.from('Quarterly figures of the sales team, for alice only.'),
        }),
      processedDocument: async () => processed(await fresh.document()),
      folder: async () =>
        (await made('POST', '/api/v1/folders', alice.headers, { name: `Folder ${Math.random()}` })).id as string,
      workspace: async () =>
        (await made('POST', '/api/v1/workspaces', alice.headers, { name: `Team ${Math.random()}` })).id as string,
      apiKey: async () =>
        (await made('POST', '/api/v1/api-keys', tenant.headers, { name: `Key ${Math.random()}` })).id as string,
      user: async () =>
        (
          await made('POST', '/api/v1/users', tenant.headers, {
            email: `u-${Math.random()}@example.com`,
            name: 'Temp',
            role: 'member',
            password: 'a long test password',
          })
        ).id as string,
      tag: async () =>
        (await made('POST', '/api/v1/tags', tenant.headers, { name: `tag-${Math.random()}` })).id as string,
      share: async () =>
        (
          await made('POST', `/api/v1/documents/${fx.document}/share`, alice.headers, {
            user_id: bob.userId,
            permission: 'view',
          })
        ).share_id as string,
      mcpServer: async () =>
        (
          await made('POST', '/api/v1/mcp/servers', tenant.headers, {
            name: `Tools ${Math.random()}`,
            url: 'http://127.0.0.1:9/mcp',
          })
        ).id as string,
      webhook: async () =>
        (
          await made('POST', '/api/v1/webhooks', tenant.headers, {
            url: 'https://127.0.0.1:9/hook',
            events: ['document.uploaded'],
          })
        ).id as string,
      workflow: async (body: unknown = WAITING) =>
        (await made('POST', '/api/v1/dag/workflows', alice.headers, body)).id as string,
      execution: async () =>
        (await made('POST', `/api/v1/dag/workflows/${fx.workflow}/execute`, alice.headers, {})).execution_id as string,
      pausedExecution: async () => {
        const id = await fresh.execution();
        await made('POST', `/api/v1/dag/executions/${id}/pause`, alice.headers);
        return id;
      },
      task: async () => {
        const execution = (
          await made('POST', `/api/v1/dag/workflows/${fx.approvalWorkflow}/execute`, alice.headers, {})
        ).execution_id as string;
        return waitFor(
          async () =>
            (
              await db()
                .selectFrom('workflow_tasks')
                .select('id')
                .where('execution_id', '=', execution)
                .executeTakeFirst()
            )?.id,
          'the task',
          20_000,
        );
      },
      chatSession: async () =>
        (
          await made('POST', '/api/v1/chat/sessions', alice.headers, {
            document_id: fx.document,
            name: `Alice asks ${Math.random()}`,
          })
        ).id as string,
      savedView: async () =>
        (
          await made('POST', '/api/v1/saved-views', alice.headers, {
            name: `Alice's view ${Math.random()}`,
            folder_id: fx.folder,
          })
        ).id as string,
      hold: async () =>
        (
          await made('POST', '/api/v1/legal-holds', tenant.headers, {
            name: `Hold ${Math.random()}`,
            folder_ids: [await fresh.folder()],
          })
        ).id as string,
      rule: async () =>
        (
          await made('POST', '/api/v1/retention-rules', tenant.headers, {
            folder_id: await fresh.folder(),
            keep_days: 3650,
            basis: 'created',
            action: 'review',
          })
        ).id as string,
      project: async () =>
        (
          await made('POST', '/api/v1/migrations/projects', tenant.headers, {
            name: `Import ${Math.random()}`,
            source_type: 'google_drive',
            config: { folder_ids: ['drive-1'] },
          })
        ).id as string,
    };
    const WAITING = {
      name: 'Waits',
      nodes: [{ id: 'wait', type: 'delay', timeout_seconds: 5, config: { seconds: 3600 } }],
    };
    const APPROVAL = () => ({
      name: 'Asks alice',
      nodes: [
        {
          id: 'ok',
          type: 'human_approval',
          config: { assignee_type: 'user', assignee_value: alice.userId, title: 'Approve', timeout_hours: 1 },
        },
      ],
    });

    before(async () => {
      t = ctx();
      tenant = await createTenant(t, { tier: 'enterprise' });
      for (const role of ['owner', 'admin', 'member', 'viewer'] as const) users[role] = await loginAs(t, tenant, role);
      users.custom = await loginAs(t, tenant, 'member', {
        email: `custom-${tenant.subdomain}@example.com`,
        roles: ['finance_manager'],
      });
      alice = await loginAs(t, tenant, 'member', { email: `alice-${tenant.subdomain}@example.com` });
      bob = await loginAs(t, tenant, 'member', { email: `bob-${tenant.subdomain}@example.com` });

      fx.document = await fresh.processedDocument();
      fx.folder = await fresh.folder();
      fx.workspace = await fresh.workspace();
      fx.share = await fresh.share();
      const batch = multipart([
        { name: 'files[]', filename: 'batch.txt', content: Buffer.from('one file of a batch') },
      ]);
      fx.batchJob = (
        await made('POST', '/api/v1/documents/upload-batch', { ...alice.headers, ...batch.headers }, batch.payload)
      ).batch_job_id;
      fx.chatSession = await fresh.chatSession();
      fx.savedView = await fresh.savedView();
      fx.mcpServer = await fresh.mcpServer();
      fx.webhook = await fresh.webhook();
      fx.delivery = (await made('POST', `/api/v1/webhooks/${fx.webhook}/test`, tenant.headers)).id;
      fx.workflow = await fresh.workflow();
      fx.approvalWorkflow = await fresh.workflow(APPROVAL());
      fx.execution = await fresh.execution();
      fx.task = await fresh.task();
      fx.project = await fresh.project();
      fx.export = (await made('POST', '/api/v1/tenant/export', users.owner.headers)).id;
      fx.hold = await fresh.hold();
      fx.rule = await fresh.rule();
      fx.checkout = (
        await made('POST', '/api/v1/subscription/checkout', tenant.headers, {
          tier: 'team',
          success_url: 'https://example.com/ok',
          cancel_url: 'https://example.com/no',
        })
      ).checkout_id;
    });

    const same = (url: string, payload?: unknown) => async (): Promise<Request> => ({
      url,
      ...(payload === undefined ? {} : { payload }),
    });

    /** The documented answers (docs/security.md "Access inside a tenant", docs/workflows.md, docs/identity-and-access.md). */
    const matrix = (): Record<string, Case> => ({
      // Identity: everyone reads users and workspaces; owners and admins manage users and keys; a workspace is its creator's and the admins'.
      'DELETE /api/v1/auth/sessions/{id}': {
        request: same(`/api/v1/auth/sessions/${alice.sessionId}`),
        expect: { ...everyone(hidden()), key: refused() },
      },
      'DELETE /api/v1/api-keys/{id}': {
        request: async () => ({ url: `/api/v1/api-keys/${await fresh.apiKey()}` }),
        expect: by(ok, refused()),
      },
      'POST /api/v1/api-keys/{id}/rotate': {
        request: async () => ({
          url: `/api/v1/api-keys/${await fresh.apiKey()}/rotate`,
          payload: { grace_seconds: 0 },
        }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/users/{id}': { request: same(`/api/v1/users/${alice.userId}`), expect: everyone(ok) },
      'PATCH /api/v1/users/{id}': {
        request: same(`/api/v1/users/${alice.userId}`, { name: 'Alice' }),
        expect: by(ok, refused()),
        intact: async () =>
          assert.equal((await made('GET', `/api/v1/users/${alice.userId}`, tenant.headers)).name, 'member user'),
      },
      'DELETE /api/v1/users/{id}': {
        request: async () => ({ url: `/api/v1/users/${await fresh.user()}` }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/workspaces/{id}': { request: same(`/api/v1/workspaces/${fx.workspace}`), expect: everyone(ok) },
      'PUT /api/v1/workspaces/{id}': {
        request: same(`/api/v1/workspaces/${fx.workspace}`, { name: 'Alice’s team' }),
        expect: by(ok, refused()),
      },
      'DELETE /api/v1/workspaces/{id}': {
        request: async () => ({ url: `/api/v1/workspaces/${await fresh.workspace()}` }),
        expect: by(ok, refused()),
      },
      'POST /api/v1/workspaces/{id}/members': {
        request: async () => ({
          url: `/api/v1/workspaces/${await fresh.workspace()}/members`,
          payload: { user_id: bob.userId },
        }),
        expect: by(ok, refused()),
      },
      'DELETE /api/v1/workspaces/{id}/members/{user_id}': {
        request: async () => {
          const ws = await fresh.workspace();
          await made('POST', `/api/v1/workspaces/${ws}/members`, alice.headers, { user_id: bob.userId });
          return { url: `/api/v1/workspaces/${ws}/members/${bob.userId}` };
        },
        expect: by(ok, refused()),
      },

      // Folders: every folder is visible; anyone but a viewer files into any; only the creator and administrators change one.
      'GET /api/v1/folders/{id}': { request: same(`/api/v1/folders/${fx.folder}`), expect: everyone(ok) },
      'POST /api/v1/folders': {
        request: async () => ({
          url: '/api/v1/folders',
          payload: { name: `Sub ${Math.random()}`, parent_id: fx.folder },
        }),
        expect: by(ok, ok, refused()),
      },
      'PUT /api/v1/folders/{id}': {
        request: same(`/api/v1/folders/${fx.folder}`, { name: 'Alice’s folder' }),
        expect: by(ok, refused()),
        intact: async () =>
          assert.equal((await made('GET', `/api/v1/folders/${fx.folder}`, tenant.headers)).parent_id, null),
      },
      'DELETE /api/v1/folders/{id}': {
        request: async () => ({ url: `/api/v1/folders/${await fresh.folder()}` }),
        expect: by(ok, refused()),
      },

      // Documents (contract §3): alice's document is not shared with the other members or the viewer: 404.
      'GET /api/v1/documents/{id}': { request: same(`/api/v1/documents/${fx.document}`), expect: by(ok, hidden()) },
      'PUT /api/v1/documents/{id}': {
        request: same(`/api/v1/documents/${fx.document}`, { folder_id: fx.folder }),
        expect: by(ok, hidden()),
        intact: async () =>
          assert.equal((await made('GET', `/api/v1/documents/${fx.document}`, tenant.headers)).folder_id, null),
      },
      'DELETE /api/v1/documents/{id}': {
        request: async () => ({ url: `/api/v1/documents/${await fresh.document()}` }),
        expect: by(ok, hidden()),
      },
      'GET /api/v1/documents/{id}/content': {
        request: same(`/api/v1/documents/${fx.document}/content`),
        expect: by(ok, hidden()),
      },
      'POST /api/v1/documents/{id}/reprocess': {
        request: async () => ({ url: `/api/v1/documents/${await fresh.processedDocument()}/reprocess` }),
        expect: by(ok, hidden()),
      },
      'POST /api/v1/documents/{id}/apply-ai-tags': {
        request: async () => ({ url: `/api/v1/documents/${await fresh.processedDocument()}/apply-ai-tags` }),
        expect: by(ok, hidden()),
      },
      'GET /api/v1/documents/{id}/download': {
        request: same(`/api/v1/documents/${fx.document}/download`),
        expect: by(ok, hidden()),
      },
      // Versions (docs/versions.md): reading them takes read access, adding or restoring one edit access.
      'GET /api/v1/documents/{id}/versions': {
        request: same(`/api/v1/documents/${fx.document}/versions`),
        expect: by(ok, hidden()),
      },
      'GET /api/v1/documents/{id}/versions/{number}/download': {
        request: same(`/api/v1/documents/${fx.document}/versions/1/download`),
        expect: by(ok, hidden()),
      },
      'POST /api/v1/documents/{id}/versions': {
        request: async () => {
          const body = multipart([
            { name: 'file', filename: 'next.txt', content: Buffer.from(`Next version ${Math.random()}`) },
          ]);
          return {
            url: `/api/v1/documents/${await fresh.document()}/versions`,
            payload: body.payload,
            headers: body.headers,
          };
        },
        expect: by(ok, hidden()),
      },
      'POST /api/v1/documents/{id}/versions/{number}/restore': {
        request: async () => {
          const id = await fresh.document();
          const body = multipart([
            { name: 'file', filename: 'next.txt', content: Buffer.from(`Second version ${Math.random()}`) },
          ]);
          await made('POST', `/api/v1/documents/${id}/versions`, { ...alice.headers, ...body.headers }, body.payload);
          return { url: `/api/v1/documents/${id}/versions/1/restore` };
        },
        expect: by(ok, hidden()),
      },
      'GET /api/v1/documents/{id}/thumbnail': {
        request: same(`/api/v1/documents/${fx.document}/thumbnail`),
        expect: by(ok, hidden()),
      },
      'POST /api/v1/documents/{id}/share': {
        request: same(`/api/v1/documents/${fx.document}/share`, { user_id: bob.userId, permission: 'view' }),
        expect: by(ok, hidden()),
      },
      'GET /api/v1/documents/{id}/shares': {
        request: same(`/api/v1/documents/${fx.document}/shares`),
        expect: by(ok, hidden()),
      },
      'DELETE /api/v1/documents/{id}/shares/{share_id}': {
        request: async () => ({ url: `/api/v1/documents/${fx.document}/shares/${await fresh.share()}` }),
        expect: by(ok, hidden()),
      },
      'DELETE /api/v1/tags/{id}': {
        request: async () => ({ url: `/api/v1/tags/${await fresh.tag()}` }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/batch-jobs/{id}': { request: same(`/api/v1/batch-jobs/${fx.batchJob}`), expect: by(ok, hidden()) },
      // Searches filter by what the caller may see (checked below: alice's document is never a hit for the others).
      'POST /api/v1/search/hybrid': {
        request: same('/api/v1/search/hybrid', { query: 'quarterly figures sales', filters: { folder_id: fx.folder } }),
        expect: everyone(ok),
      },
      'POST /api/v1/search/enhanced': {
        request: same('/api/v1/search/enhanced', {
          query: 'quarterly figures sales',
          filters: { folder_id: fx.folder },
        }),
        expect: everyone(ok),
      },

      // Chat (docs/api-decisions.md §7): a session is its user's; API keys act for the tenant. Opening one needs read access to the document.
      'POST /api/v1/chat/sessions': {
        request: same('/api/v1/chat/sessions', { document_id: fx.document, name: 'Peek' }),
        expect: by(ok, hidden()),
      },
      'GET /api/v1/chat/sessions/{id}': {
        request: same(`/api/v1/chat/sessions/${fx.chatSession}`),
        expect: { ...everyone(hidden()), key: ok },
      },
      'DELETE /api/v1/chat/sessions/{id}': {
        request: async () => ({ url: `/api/v1/chat/sessions/${await fresh.chatSession()}` }),
        expect: { ...everyone(hidden()), key: ok },
      },
      'GET /api/v1/chat/sessions/{id}/messages': {
        request: same(`/api/v1/chat/sessions/${fx.chatSession}/messages`),
        expect: { ...everyone(hidden()), key: ok },
      },
      'POST /api/v1/chat/sessions/{id}/ask': {
        request: same(`/api/v1/chat/sessions/${fx.chatSession}/ask`, { message: 'What are the figures?' }),
        expect: { ...everyone(hidden()), key: ok },
      },

      // Saved views: a person's own; nobody else (administrators and the tenant's key included) reaches alice's.
      'POST /api/v1/saved-views': {
        request: same('/api/v1/saved-views', { name: `Mine ${Math.random()}`, folder_id: fx.folder }),
        expect: everyone(ok),
      },
      'GET /api/v1/saved-views/{id}': {
        request: same(`/api/v1/saved-views/${fx.savedView}`),
        expect: everyone(hidden()),
      },
      'PATCH /api/v1/saved-views/{id}': {
        request: same(`/api/v1/saved-views/${fx.savedView}`, { name: 'Taken over' }),
        expect: everyone(hidden()),
      },
      'DELETE /api/v1/saved-views/{id}': {
        request: same(`/api/v1/saved-views/${fx.savedView}`),
        expect: everyone(hidden()),
      },

      // MCP servers: the tenant's tools, registered and deleted by administrators, read by everyone (their header values are never shown).
      'GET /api/v1/mcp/servers/{id}': { request: same(`/api/v1/mcp/servers/${fx.mcpServer}`), expect: everyone(ok) },
      'DELETE /api/v1/mcp/servers/{id}': {
        request: async () => ({ url: `/api/v1/mcp/servers/${await fresh.mcpServer()}` }),
        expect: by(ok, refused()),
      },
      // Nothing listens there: past the access checks the call fails upstream (502).
      'GET /api/v1/mcp/servers/{id}/tools': {
        request: same(`/api/v1/mcp/servers/${fx.mcpServer}/tools`),
        expect: everyone(reached),
      },

      // Webhooks: administrators only.
      'GET /api/v1/webhooks/{id}': { request: same(`/api/v1/webhooks/${fx.webhook}`), expect: by(ok, refused()) },
      'PUT /api/v1/webhooks/{id}': {
        request: same(`/api/v1/webhooks/${fx.webhook}`, { events: ['document.processed'] }),
        expect: by(ok, refused()),
      },
      'DELETE /api/v1/webhooks/{id}': {
        request: async () => ({ url: `/api/v1/webhooks/${await fresh.webhook()}` }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/webhooks/{id}/deliveries': {
        request: same(`/api/v1/webhooks/${fx.webhook}/deliveries`),
        expect: by(ok, refused()),
      },
      'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': {
        request: same(`/api/v1/webhooks/${fx.webhook}/deliveries/${fx.delivery}/redeliver`),
        expect: by(ok, refused()),
      },
      'POST /api/v1/webhooks/{id}/test': {
        request: same(`/api/v1/webhooks/${fx.webhook}/test`),
        expect: by(ok, refused()),
      },
      'POST /api/v1/webhooks/{id}/secret': {
        request: async () => ({ url: `/api/v1/webhooks/${await fresh.webhook()}/secret`, payload: {} }),
        expect: by(ok, refused()),
      },

      // Workflows (docs/workflows.md "Who may do what"): alice's are hers and the administrators'; viewers are refused every change first (403).
      'GET /api/v1/dag/workflows/{id}': {
        request: same(`/api/v1/dag/workflows/${fx.workflow}`),
        expect: by(ok, hidden('workflow_not_found')),
      },
      'PUT /api/v1/dag/workflows/{id}': {
        request: same(`/api/v1/dag/workflows/${fx.workflow}`, { description: 'reviewed' }),
        expect: by(ok, hidden('workflow_not_found'), refused()),
        intact: async () =>
          assert.equal((await made('GET', `/api/v1/dag/workflows/${fx.workflow}`, tenant.headers)).description, ''),
      },
      'DELETE /api/v1/dag/workflows/{id}': {
        request: async () => ({ url: `/api/v1/dag/workflows/${await fresh.workflow()}` }),
        expect: by(ok, hidden('workflow_not_found'), refused()),
      },
      'POST /api/v1/dag/workflows/{id}/validate': {
        request: same(`/api/v1/dag/workflows/${fx.workflow}/validate`),
        expect: by(ok, hidden('workflow_not_found')),
      },
      'POST /api/v1/dag/workflows/{id}/execute': {
        request: same(`/api/v1/dag/workflows/${fx.workflow}/execute`, {}),
        expect: by(ok, hidden('workflow_not_found'), refused()),
      },
      'GET /api/v1/dag/executions/{id}': {
        request: same(`/api/v1/dag/executions/${fx.execution}`),
        expect: by(ok, hidden('execution_not_found')),
      },
      'POST /api/v1/dag/executions/{id}/pause': {
        request: async () => ({ url: `/api/v1/dag/executions/${await fresh.execution()}/pause` }),
        expect: by(ok, hidden('execution_not_found'), refused()),
      },
      'POST /api/v1/dag/executions/{id}/resume': {
        request: async () => ({ url: `/api/v1/dag/executions/${await fresh.pausedExecution()}/resume`, payload: {} }),
        expect: by(ok, hidden('execution_not_found'), refused()),
      },
      'POST /api/v1/dag/executions/{id}/cancel': {
        request: async () => ({ url: `/api/v1/dag/executions/${await fresh.execution()}/cancel`, payload: {} }),
        expect: by(ok, hidden('execution_not_found'), refused()),
      },
      'GET /api/v1/dag/tasks/{id}': {
        request: same(`/api/v1/dag/tasks/${fx.task}`),
        expect: by(ok, hidden('task_not_found')),
      },
      // Contract §10: completing is for an assignee, an owner or an admin (403 INSUFFICIENT_PERMISSIONS).
      'POST /api/v1/dag/tasks/{id}/complete': {
        request: async () => ({
          url: `/api/v1/dag/tasks/${await fresh.task()}/complete`,
          payload: { decision: 'approved' },
        }),
        expect: by(ok, refused('insufficient_permissions')),
      },
      // Public, signed by the workflow's secret: credentials change nothing; a workflow without a webhook trigger answers 404.
      'POST /api/v1/dag/hooks/{id}': {
        request: same(`/api/v1/dag/hooks/${fx.workflow}`, {}),
        expect: everyone(hidden('workflow_not_found')),
      },

      // Subscription: billing is for owners and admins.
      'GET /api/v1/subscription/checkouts/{checkout_id}': {
        request: same(`/api/v1/subscription/checkouts/${fx.checkout}`),
        expect: by(ok, refused('insufficient_permissions')),
      },

      // Import projects (docs/imports.md): owners, admins and API keys; the target folder must be the tenant's.
      'POST /api/v1/migrations/projects': {
        request: same('/api/v1/migrations/projects', {
          name: 'Into alice’s folder',
          source_type: 'google_drive',
          config: { folder_ids: ['drive-1'], target_folder_id: fx.folder },
        }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/migrations/projects/{id}': {
        request: same(`/api/v1/migrations/projects/${fx.project}`),
        expect: by(ok, refused()),
      },
      'PUT /api/v1/migrations/projects/{id}': {
        request: same(`/api/v1/migrations/projects/${fx.project}`, { config: { target_folder_id: fx.folder } }),
        expect: by(ok, refused()),
      },
      // A draft project cannot be deleted, scanned, started, paused, resumed or cancelled (409): past the access checks.
      'DELETE /api/v1/migrations/projects/{id}': {
        request: same(`/api/v1/migrations/projects/${fx.project}`),
        expect: by(reached, refused()),
      },
      'POST /api/v1/migrations/projects/{id}/scan': {
        request: same(`/api/v1/migrations/projects/${fx.project}/scan`),
        expect: by(reached, refused()),
      },
      'POST /api/v1/migrations/projects/{id}/start': {
        request: same(`/api/v1/migrations/projects/${fx.project}/start`),
        expect: by(reached, refused()),
      },
      'POST /api/v1/migrations/projects/{id}/pause': {
        request: same(`/api/v1/migrations/projects/${fx.project}/pause`),
        expect: by(reached, refused()),
      },
      'POST /api/v1/migrations/projects/{id}/resume': {
        request: same(`/api/v1/migrations/projects/${fx.project}/resume`),
        expect: by(reached, refused()),
      },
      'POST /api/v1/migrations/projects/{id}/cancel': {
        request: same(`/api/v1/migrations/projects/${fx.project}/cancel`),
        expect: by(reached, refused()),
      },
      'GET /api/v1/migrations/projects/{id}/progress': {
        request: same(`/api/v1/migrations/projects/${fx.project}/progress`),
        expect: by(ok, refused()),
      },
      'GET /api/v1/migrations/projects/{id}/items': {
        request: same(`/api/v1/migrations/projects/${fx.project}/items`),
        expect: by(ok, refused()),
      },
      'POST /api/v1/migrations/projects/{id}/agents': {
        request: same(`/api/v1/migrations/projects/${fx.project}/agents`, {
          agent_type: 'workflow',
          phase: 'completion',
          config: { workflow_id: fx.workflow },
        }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/migrations/projects/{id}/agents': {
        request: same(`/api/v1/migrations/projects/${fx.project}/agents`),
        expect: by(ok, refused()),
      },
      'GET /api/v1/migrations/projects/{id}/agent-runs': {
        request: same(`/api/v1/migrations/projects/${fx.project}/agent-runs`),
        expect: by(ok, refused()),
      },

      // Tenant exports (docs/tenant-export.md): the owner only; the download is 409 until the archive is written.
      'GET /api/v1/exports/{id}': {
        request: same(`/api/v1/exports/${fx.export}`),
        expect: { ...everyone(refused()), owner: ok },
      },
      'GET /api/v1/exports/{id}/download': {
        request: same(`/api/v1/exports/${fx.export}/download`),
        expect: { ...everyone(refused()), owner: reached },
      },
      // Records (docs/records.md): legal holds and retention rules are for owners, admins and API keys.
      'POST /api/v1/legal-holds': {
        request: async () => ({
          url: '/api/v1/legal-holds',
          payload: { name: 'Dispute', folder_ids: [await fresh.folder()], document_ids: [fx.document] },
        }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/legal-holds/{id}': { request: same(`/api/v1/legal-holds/${fx.hold}`), expect: by(ok, refused()) },
      'DELETE /api/v1/legal-holds/{id}': {
        request: async () => ({ url: `/api/v1/legal-holds/${await fresh.hold()}` }),
        expect: by(ok, refused()),
      },
      'POST /api/v1/retention-rules': {
        request: async () => ({
          url: '/api/v1/retention-rules',
          payload: { folder_id: await fresh.folder(), keep_days: 3650, basis: 'created', action: 'delete' },
        }),
        expect: by(ok, refused()),
      },
      'GET /api/v1/retention-rules/{id}': {
        request: same(`/api/v1/retention-rules/${fx.rule}`),
        expect: by(ok, refused()),
      },
      'POST /api/v1/retention-rules/{id}/run': {
        request: same(`/api/v1/retention-rules/${fx.rule}/run`),
        expect: by(ok, refused()),
      },
      'DELETE /api/v1/retention-rules/{id}': {
        request: async () => ({ url: `/api/v1/retention-rules/${await fresh.rule()}` }),
        expect: by(ok, refused()),
      },

      // The operator's endpoints take the administrator key only: a tenant's credentials are 401.
      ...Object.fromEntries(
        [
          'GET /api/v1/admin/tenants/{tenant_id}',
          'PATCH /api/v1/admin/tenants/{tenant_id}',
          'POST /api/v1/admin/checkouts/{checkout_id}/complete',
          'GET /api/v1/admin/storage/config/{tenant_id}',
          'PUT /api/v1/admin/storage/config/{tenant_id}',
          'POST /api/v1/admin/storage/config/{tenant_id}/migrate',
          'GET /api/v1/admin/storage/migrations/{tenant_id}',
          'GET /api/v1/admin/storage/migrations/{tenant_id}/history',
          'GET /api/v1/admin/storage/migrations/{migration_id}/failed',
          'POST /api/v1/admin/storage/migrations/{migration_id}/retry',
          'POST /api/v1/admin/storage/migrations/{migration_id}/cancel',
          'POST /api/v1/admin/mail/{mail_id}/retry',
          'POST /api/v1/admin/tenants/{tenant_id}/export',
          'GET /api/v1/admin/tenants/{tenant_id}/exports/{export_id}',
          'GET /api/v1/admin/tenants/{tenant_id}/exports/{export_id}/download',
        ].map((route) => [
          route,
          {
            request: same(
              route.split(' ')[1]!.replace(/\{[a-z_]+\}/g, tenant.tenantId),
              route.startsWith('GET') ? undefined : {},
            ),
            expect: everyone(unauthorized),
          },
        ]),
      ),
    });

    it('covers every route that names an object, and nothing else', async () => {
      const doc = (await call('GET', '/api/v1/openapi.json', {})).json();
      const served = routesNamingObjects(doc);
      const listed = Object.keys(matrix()).sort();
      assert.deepEqual(
        { missing: served.filter((r) => !listed.includes(r)), stale: listed.filter((r) => !served.includes(r)) },
        { missing: [], stale: [] },
        'every route with a path id or a body id needs its row in the matrix',
      );
    });

    it('answers every role as documented, on objects another user owns', async () => {
      const failures: string[] = [];
      for (const [route, test] of Object.entries(matrix())) {
        const [method, path] = route.split(' ') as [Method, string];
        for (const role of ROLES) {
          const request = await test.request(role);
          const res = await call(method, request.url, { ...headersOf(role), ...request.headers }, request.payload);
          const expected = test.expect[role];
          const status = res.statusCode;
          const good =
            expected.status === 'ok'
              ? status >= 200 && status < 300
              : expected.status === 'reached'
                ? ![401, 403, 404].includes(status)
                : status === expected.status && (expected.error === undefined || res.json().error === expected.error);
          if (!good)
            failures.push(
              `${role.padEnd(6)} ${method} ${path} → ${status} ${res.body.slice(0, 160)} (expected ${expected.status}${expected.error ? ` ${expected.error}` : ''})`,
            );
          if (good && status >= 400 && test.intact) await test.intact(request);
        }
      }
      assert.deepEqual(failures, []);
    });

    it('searches find alice’s document for administrators and never for those who may not read it', async () => {
      for (const role of ROLES) {
        const res = await call('POST', '/api/v1/search/hybrid', headersOf(role), {
          query: 'quarterly figures sales team',
        });
        assert.equal(res.statusCode, 200, res.body);
        const ids = res.json().results.map((r: { document: { id: string } }) => r.document.id);
        const mayRead = role === 'owner' || role === 'admin' || role === 'key';
        assert.equal(ids.includes(fx.document), mayRead, `${role}: ${res.body.slice(0, 300)}`);
      }
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
