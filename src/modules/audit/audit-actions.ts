/*
 * What the audit trail records for each route (docs/audit.md): one declaration per route, read by
 * the one hook of audit-http.ts.
 *
 * A route declares its action in its own options, `config: { audit: 'document.version.create' }`
 * (new routes do this), or, for the routes that existed before the trail, in `ROUTE_ACTIONS`
 * below, keyed by method and path (so adding the trail touched no route file). A route is in at
 * most one of the two (test/modules/audit/audit-routes.test.ts), and every state-changing route is either
 * audited or named in `NOT_AUDITED` with its reason, so a new route cannot be forgotten.
 */

/**
 * `read`: a read of a document's content, batched (buffered in memory, flushed by size and time).
 * `change`: a change of the library; `admin`: an administrative act. Both are written before the
 * answer is sent (or in the act's transaction, `AuditTrail.recordIn`).
 */
export type AuditKind = 'read' | 'change' | 'admin';

export interface AuditActionSpec {
  /** The recorded action name, `<target>.<verb>`. */
  action: string;
  kind: AuditKind;
  /** What the target id names (`document`, `folder`, `user`...); absent for tenant-wide acts. */
  target?: string;
  /**
   * Where the target id comes from: a route parameter's name (default `id` when `target` is set),
   * or `response` for creations (the answer's `id`, or the field given after a colon: `response:batch_job_id`, `response:tenant.id`).
   */
  from?: string;
  /** Administrator-key routes: the route parameter naming the tenant the act concerns (default `tenant_id`), or `response:<field>`. */
  tenantFrom?: string;
}

/** What a route's `config.audit` may hold: a full spec (new routes) or an action of `ACTIONS` by name. */
export type RouteAudit = AuditActionSpec | AuditActionName;

const spec = (action: string, kind: AuditKind, target?: string, from?: string): AuditActionSpec => ({
  action,
  kind,
  ...(target ? { target } : {}),
  ...(from ? { from } : {}),
});

/** The catalogue of actions, by name. */
export const ACTIONS = {
  // Reads of a document's content (chat citations and MCP reads are recorded by their modules).
  'document.download': spec('document.download', 'read', 'document'),
  'document.content': spec('document.content', 'read', 'document'),
  'document.cited': spec('document.cited', 'read', 'document'),
  'document.mcp_read': spec('document.mcp_read', 'read', 'document'),
  'document.version_download': spec('document.version_download', 'read', 'document'),
  // Changes of the library.
  'document.upload': spec('document.upload', 'change', 'document', 'response'),
  'document.upload_batch': spec('document.upload_batch', 'change', 'batch_job', 'response:batch_job_id'),
  'document.update': spec('document.update', 'change', 'document'),
  'document.delete': spec('document.delete', 'change', 'document'),
  'document.reprocess': spec('document.reprocess', 'change', 'document'),
  'document.apply_ai_tags': spec('document.apply_ai_tags', 'change', 'document'),
  'document.share': spec('document.share', 'change', 'document'),
  'document.version_create': spec('document.version_create', 'change', 'document'),
  'document.version_restore': spec('document.version_restore', 'change', 'document'),
  'document.unshare': spec('document.unshare', 'change', 'document'),
  'folder.create': spec('folder.create', 'change', 'folder', 'response'),
  'folder.update': spec('folder.update', 'change', 'folder'),
  'folder.delete': spec('folder.delete', 'change', 'folder'),
  'tag.create': spec('tag.create', 'change', 'tag', 'response'),
  'tag.delete': spec('tag.delete', 'change', 'tag'),
  // Administrative acts.
  'api_key.create': spec('api_key.create', 'admin', 'api_key', 'response'),
  'api_key.revoke': spec('api_key.revoke', 'admin', 'api_key'),
  'api_key.rotate': spec('api_key.rotate', 'admin', 'api_key'),
  'user.create': spec('user.create', 'admin', 'user', 'response'),
  'user.update': spec('user.update', 'admin', 'user'),
  'user.delete': spec('user.delete', 'admin', 'user'),
  'session.revoke': spec('session.revoke', 'admin', 'session'),
  'auth.password_change': spec('auth.password_change', 'admin'),
  'workspace.create': spec('workspace.create', 'admin', 'workspace', 'response'),
  'workspace.update': spec('workspace.update', 'admin', 'workspace'),
  'workspace.delete': spec('workspace.delete', 'admin', 'workspace'),
  'workspace.member_add': spec('workspace.member_add', 'admin', 'workspace'),
  'workspace.member_remove': spec('workspace.member_remove', 'admin', 'workspace'),
  'webhook.create': spec('webhook.create', 'admin', 'webhook', 'response'),
  'webhook.update': spec('webhook.update', 'admin', 'webhook'),
  'webhook.delete': spec('webhook.delete', 'admin', 'webhook'),
  'webhook.test': spec('webhook.test', 'admin', 'webhook'),
  'webhook.redeliver': spec('webhook.redeliver', 'admin', 'webhook'),
  'mcp_server.create': spec('mcp_server.create', 'admin', 'mcp_server', 'response'),
  'mcp_server.delete': spec('mcp_server.delete', 'admin', 'mcp_server'),
  'tenant.settings_update': spec('tenant.settings_update', 'admin'),
  'mail.settings_update': spec('mail.settings_update', 'admin'),
  'subscription.checkout': spec('subscription.checkout', 'admin', 'checkout', 'response:checkout_id'),
  'storage.config_update': spec('storage.config_update', 'admin'),
  'storage.migration_start': spec('storage.migration_start', 'admin', 'storage_migration', 'response'),
  'tenant.create': {
    action: 'tenant.create',
    kind: 'admin',
    target: 'tenant',
    from: 'response:tenant.id',
    tenantFrom: 'response:tenant.id',
  },
  'tenant.update': spec('tenant.update', 'admin', 'tenant', 'tenant_id'),
  'audit.export': spec('audit.export', 'admin'),
  'tenant.export': spec('tenant.export', 'admin', 'tenant_export', 'response'),
  'tenant.export_admin': { action: 'tenant.export', kind: 'admin', target: 'tenant_export', from: 'response' },
  'tenant.import': {
    action: 'tenant.import',
    kind: 'admin',
    target: 'tenant',
    from: 'response:tenant.id',
    tenantFrom: 'response:tenant.id',
  },
  'legal_hold.create': spec('legal_hold.create', 'admin', 'legal_hold', 'response'),
  'legal_hold.release': spec('legal_hold.release', 'admin', 'legal_hold'),
  'retention_rule.create': spec('retention_rule.create', 'admin', 'retention_rule', 'response'),
  'retention_rule.run': spec('retention_rule.run', 'admin', 'retention_rule'),
  'retention_rule.delete': spec('retention_rule.delete', 'admin', 'retention_rule'),
  // A request refused on an existing object (403, or 404 for a document the caller may not see).
  'access.denied': spec('access.denied', 'read'),
} as const satisfies Record<string, AuditActionSpec>;

export type AuditActionName = keyof typeof ACTIONS;

/** The routes that existed before the trail, by `METHOD /api/v1/path` (Fastify's parameter syntax). */
export const ROUTE_ACTIONS: Readonly<Record<string, AuditActionName>> = {
  'GET /api/v1/documents/:id/download': 'document.download',
  'GET /api/v1/documents/:id/content': 'document.content',
  'POST /api/v1/documents/upload': 'document.upload',
  'POST /api/v1/documents/upload-batch': 'document.upload_batch',
  'PUT /api/v1/documents/:id': 'document.update',
  'DELETE /api/v1/documents/:id': 'document.delete',
  'POST /api/v1/documents/:id/reprocess': 'document.reprocess',
  'POST /api/v1/documents/:id/apply-ai-tags': 'document.apply_ai_tags',
  'POST /api/v1/documents/:id/share': 'document.share',
  'DELETE /api/v1/documents/:id/shares/:share_id': 'document.unshare',
  'POST /api/v1/folders': 'folder.create',
  'PUT /api/v1/folders/:id': 'folder.update',
  'DELETE /api/v1/folders/:id': 'folder.delete',
  'POST /api/v1/tags': 'tag.create',
  'DELETE /api/v1/tags/:id': 'tag.delete',
  'POST /api/v1/api-keys': 'api_key.create',
  'DELETE /api/v1/api-keys/:id': 'api_key.revoke',
  'POST /api/v1/api-keys/:id/rotate': 'api_key.rotate',
  'POST /api/v1/users': 'user.create',
  'PATCH /api/v1/users/:id': 'user.update',
  'DELETE /api/v1/users/:id': 'user.delete',
  'DELETE /api/v1/auth/sessions/:id': 'session.revoke',
  'POST /api/v1/auth/password/change': 'auth.password_change',
  'POST /api/v1/workspaces': 'workspace.create',
  'PUT /api/v1/workspaces/:id': 'workspace.update',
  'DELETE /api/v1/workspaces/:id': 'workspace.delete',
  'POST /api/v1/workspaces/:id/members': 'workspace.member_add',
  'DELETE /api/v1/workspaces/:id/members/:user_id': 'workspace.member_remove',
  'POST /api/v1/webhooks': 'webhook.create',
  'PUT /api/v1/webhooks/:id': 'webhook.update',
  'DELETE /api/v1/webhooks/:id': 'webhook.delete',
  'POST /api/v1/webhooks/:id/test': 'webhook.test',
  'POST /api/v1/webhooks/:id/deliveries/:delivery_id/redeliver': 'webhook.redeliver',
  'POST /api/v1/mcp/servers': 'mcp_server.create',
  'DELETE /api/v1/mcp/servers/:id': 'mcp_server.delete',
  'PATCH /api/v1/tenant/settings': 'tenant.settings_update',
  'PATCH /api/v1/mail/settings': 'mail.settings_update',
  'POST /api/v1/subscription/checkout': 'subscription.checkout',
  'PUT /api/v1/admin/storage/config/:tenant_id': 'storage.config_update',
  'POST /api/v1/admin/storage/config/:tenant_id/migrate': 'storage.migration_start',
  'POST /api/v1/admin/tenants': 'tenant.create',
  'PATCH /api/v1/admin/tenants/:tenant_id': 'tenant.update',
  'GET /api/v1/audit/export': 'audit.export',
  'POST /api/v1/documents/:id/versions': 'document.version_create',
  'GET /api/v1/documents/:id/versions/:number/download': 'document.version_download',
  'POST /api/v1/documents/:id/versions/:number/restore': 'document.version_restore',
  'POST /api/v1/tenant/export': 'tenant.export',
  'POST /api/v1/admin/tenants/:tenant_id/export': 'tenant.export_admin',
  'POST /api/v1/admin/tenants/import': 'tenant.import',
  'POST /api/v1/legal-holds': 'legal_hold.create',
  'DELETE /api/v1/legal-holds/:id': 'legal_hold.release',
  'POST /api/v1/retention-rules': 'retention_rule.create',
  'POST /api/v1/retention-rules/:id/run': 'retention_rule.run',
  'DELETE /api/v1/retention-rules/:id': 'retention_rule.delete',
};

/**
 * State-changing routes deliberately not audited, with the reason. Everything else that changes
 * state must be audited (test/modules/audit/audit-routes.test.ts).
 */
const SIGN_IN =
  'authentication itself (no tenant act yet, or the session only): sign-in security has its own lockouts and mail';
const WORKFLOWS = "workflows, executions and tasks: not in issue 32's list; their history is the execution log";
const IMPORTS =
  "import projects: not in issue 32's list; each imported document is recorded as document.upload (actor system)";
/** Saved views are a person's own console settings: they neither read nor change the library or anyone's access. */
const SAVED_VIEW =
  "the caller's own saved view (a filter and a folder remembered for the console): no content read, nothing of the library changed";

export const NOT_AUDITED: Readonly<Record<string, string>> = {
  'POST /mcp': 'the MCP endpoint: its reads are recorded by the tools (document.mcp_read)',
  'POST /api/v1/auth/register': SIGN_IN,
  'POST /api/v1/auth/login': SIGN_IN,
  'POST /api/v1/auth/refresh': SIGN_IN,
  'POST /api/v1/auth/logout': SIGN_IN,
  'POST /api/v1/auth/password/forgot': SIGN_IN,
  'POST /api/v1/auth/password/reset': SIGN_IN,
  'POST /api/v1/saved-views': SAVED_VIEW,
  'PATCH /api/v1/saved-views/:id': SAVED_VIEW,
  'DELETE /api/v1/saved-views/:id': SAVED_VIEW,
  'POST /api/v1/search/hybrid': 'a search reads no content (results are metadata and snippets)',
  'POST /api/v1/search/enhanced': 'a search reads no content (results are metadata and snippets)',
  'POST /api/v1/chat/sessions': "a conversation: its answers' citations are recorded (document.cited)",
  'DELETE /api/v1/chat/sessions/:id': "a conversation of the caller's own",
  'POST /api/v1/chat/sessions/:id/ask': 'recorded from inside as document.cited when the answer cites the document',
  'POST /api/v1/dag/workflows': WORKFLOWS,
  'PUT /api/v1/dag/workflows/:id': WORKFLOWS,
  'DELETE /api/v1/dag/workflows/:id': WORKFLOWS,
  'POST /api/v1/dag/workflows/:id/validate': WORKFLOWS,
  'POST /api/v1/dag/workflows/validate': 'a check of a definition in the body: nothing read or stored',
  'POST /api/v1/dag/workflows/:id/execute': WORKFLOWS,
  'POST /api/v1/dag/executions/:id/pause': WORKFLOWS,
  'POST /api/v1/dag/executions/:id/resume': WORKFLOWS,
  'POST /api/v1/dag/executions/:id/cancel': WORKFLOWS,
  'POST /api/v1/dag/tasks/:id/complete': WORKFLOWS,
  'POST /api/v1/dag/hooks/:id': WORKFLOWS,
  'POST /api/v1/migrations/projects': IMPORTS,
  'PUT /api/v1/migrations/projects/:id': IMPORTS,
  'DELETE /api/v1/migrations/projects/:id': IMPORTS,
  'POST /api/v1/migrations/projects/:id/scan': IMPORTS,
  'POST /api/v1/migrations/projects/:id/start': IMPORTS,
  'POST /api/v1/migrations/projects/:id/pause': IMPORTS,
  'POST /api/v1/migrations/projects/:id/resume': IMPORTS,
  'POST /api/v1/migrations/projects/:id/cancel': IMPORTS,
  'POST /api/v1/migrations/projects/:id/agents': IMPORTS,
  'POST /api/v1/admin/mail/:mail_id/retry':
    "administrator key, no tenant in the path (TODO: resolve the mail's tenant)",
  'POST /api/v1/admin/checkouts/:checkout_id/complete':
    "administrator key, no tenant in the path (TODO: record in the checkout's tenant)",
  'POST /api/v1/admin/storage/migrations/:migration_id/retry':
    "administrator key, no tenant in the path (TODO: record in the migration's tenant)",
  'POST /api/v1/admin/storage/migrations/:migration_id/cancel':
    "administrator key, no tenant in the path (TODO: record in the migration's tenant)",
};

/** `METHOD path` of every route that declares `config.audit` (filled as routes are registered, audit-http.ts). */
export const ROUTES_DECLARING_AUDIT = new Set<string>();

/** The spec a route's `config.audit` names. */
export function resolveSpec(audit: RouteAudit): AuditActionSpec {
  return typeof audit === 'string' ? ACTIONS[audit] : audit;
}
