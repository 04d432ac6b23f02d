/**
 * What a tenant archive holds (docs/tenant-export.md): one NDJSON entry per resource, each a table
 * of the service read for one tenant, in an order where every row comes after the rows it refers
 * to (the instance transfer's dependency order, src/db/transfer/catalog.ts, restricted to a
 * tenant's portable data). Rows keep the service's column names and portable values (text,
 * numbers, 0/1 flags, JSON as text; bytes as `{"$b64": ...}`).
 *
 * Like src/db/transfer, this is the one place outside the owning modules that reads and writes
 * their tables, and it does so generically (by table name), for a whole tenant at once.
 */

export interface ArchiveResource {
  /** The table, and the entry `<table>.ndjson`. */
  table: string;
  /** Primary-key columns, in key order (rows are read in this order, in batches). */
  key: readonly string[];
  /** Columns never written to the archive (secrets: sealed values the importing service could not open anyway). */
  omit?: readonly string[];
  /** Columns a service rebuilds itself after an import (blob keys, caches). */
  derived?: readonly string[];
  /** Rows refer to other rows of the same table (folders' parents): inserted parents first. */
  selfReference?: string;
}

/**
 * In import order. Tables derived by triggers on these (document visibility, folder and tenant
 * counters, the search index, name index and change log) are rebuilt by the importing database
 * itself as the rows go in, so they are not in the archive.
 */
export const ARCHIVE_RESOURCES: readonly ArchiveResource[] = [
  { table: 'tenant_cors_origins', key: ['origin', 'tenant_id'] },
  { table: 'mail_settings', key: ['tenant_id'] },
  { table: 'users', key: ['id'] },
  { table: 'workspaces', key: ['id'] },
  { table: 'workspace_members', key: ['workspace_id', 'user_id'] },
  { table: 'folders', key: ['id'], selfReference: 'parent_id', derived: ['document_count'] },
  { table: 'tags', key: ['id'] },
  { table: 'documents', key: ['id'], derived: ['storage_key', 'thumbnail_key', 'storage_provider'] },
  // Every version of a document that has more than one (docs/versions.md). The current version's
  // bytes are the document's own (`files/<document id>`); every other version's travel under
  // `versions/<version id>`. Its blob key is rebuilt on import; the triggers count the bytes again.
  { table: 'document_versions', key: ['id'], derived: ['storage_key'] },
  { table: 'document_contents', key: ['document_id'] },
  { table: 'document_chunks', key: ['document_id', 'chunk_index'] },
  { table: 'document_tags', key: ['document_id', 'tag_id'] },
  { table: 'document_shares', key: ['id'] },
  { table: 'learned_tag_terms', key: ['document_id'] },
  { table: 'learned_tag_models', key: ['tenant_id'] },
  { table: 'workflows', key: ['id'] },
  { table: 'workflow_versions', key: ['workflow_id', 'version'] },
  { table: 'workflow_executions', key: ['id'] },
  { table: 'workflow_node_runs', key: ['id'] },
  { table: 'workflow_execution_log', key: ['id'] },
  { table: 'workflow_tasks', key: ['id'] },
  { table: 'document_ai_reviews', key: ['document_id'] },
  // The signing secret is never exported: imported webhooks are paused until a new one is set.
  { table: 'webhooks', key: ['id'], omit: ['secret'] },
  { table: 'chat_sessions', key: ['id'] },
  { table: 'chat_messages', key: ['id'] },
  // Header values are sealed with this service's key: only their names travel.
  { table: 'mcp_servers', key: ['id'], omit: ['headers_sealed'] },
];

/**
 * What a tenant has that an archive does not carry, and why (listed in every manifest, so the
 * import report can say it): secrets, credentials of this service, history of deliveries, billing.
 */
export const NOT_PORTABLE: Readonly<Record<string, string>> = {
  api_keys: 'API keys are secrets: create new keys after the import',
  webhook_secrets: 'webhook signing secrets are not exported: imported webhooks are paused until a new secret is set',
  mcp_server_headers: 'header values of registered MCP servers are sealed with this service’s key: set them again',
  auth_sessions: 'sign-in sessions and tokens belong to this service',
  storage_customer_targets: 'customer-owned storage credentials are not exported',
  import_projects: 'Google Drive import projects hold credentials of this service',
  webhook_deliveries: 'delivery attempts are this service’s history with the receivers',
  subscriptions: 'billing (subscription, checkouts, tier history, AI credit charges) stays with the service that bills',
  events:
    'the event log and the job queue are this service’s (with them, who added or restored which document version when: the versions themselves are carried)',
};

/** The ids of a tenant's rows: every `id` column of the archive's tables (UUIDv7), remapped when taken. */
export const idColumn = (r: ArchiveResource): boolean => r.key.length === 1 && r.key[0] === 'id';
