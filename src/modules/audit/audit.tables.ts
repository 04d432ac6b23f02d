/**
 * The audit trail (docs/audit.md): one row per recorded act, append only. `at` is epoch ms;
 * `details` is a JSON object or null.
 */
export interface AuditRecordsTable {
  id: string;
  tenant_id: string;
  at: number;
  /** `user`, `api_key`, `platform_admin` (the administrator key) or `system`. */
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** `success`, `denied` or `failed`. */
  outcome: string;
  /** The HTTP status the act was answered with, when it came through the API. */
  status: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: string | null;
}

/**
 * Changes recorded inside their transaction (`recordIn`), waiting to be moved into
 * `audit_records` by the next flush (docs/audit.md, "What recording costs"): the same columns and
 * no index at all (not even a primary key: the flush takes the whole table), so the act's
 * transaction writes one narrow row into one B-tree instead of an entry in each of
 * `audit_records`' seven.
 */
export type AuditPendingTable = AuditRecordsTable;

/** Tenants deleted: their records are purged `AUDIT_RETENTION_DAYS` after `deleted_at`. */
export interface AuditTenantDeletionsTable {
  tenant_id: string;
  deleted_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    audit_records: AuditRecordsTable;
    audit_pending: AuditPendingTable;
    audit_tenant_deletions: AuditTenantDeletionsTable;
  }
}
