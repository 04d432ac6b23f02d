/**
 * One row per running service process (API or worker) on this database, kept fresh by a
 * heartbeat (instance-lease.ts). `npm run db:transfer` reads it to refuse copying a database a
 * service is still writing (docs/deploy.md, "From one machine to many").
 */
export interface ServiceInstancesTable {
  id: string;
  host: string;
  pid: number;
  /** `serve` or `worker`... what the process was started as (for the refusal message). */
  role: string;
  started_at: number;
  heartbeat_at: number;
}

/** A tenant export (docs/tenant-export.md): made by the `transfer.export_tenant` job, kept until `expires_at`. */
export interface TenantExportsTable {
  id: string;
  tenant_id: string;
  /** `administrator`, or the user id of the owner who asked. */
  requested_by: string;
  /** `queued`, `running`, `completed`, `failed`, `expired`. */
  status: string;
  /** What the job is doing: `queued`, `rows`, `files`, `done`. */
  phase: string;
  entries_total: number;
  entries_done: number;
  bytes_total: number;
  bytes_done: number;
  blob_key: string | null;
  size: number | null;
  sha256: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  expires_at: number | null;
}

/**
 * A tenant import, recorded before its first file is stored (tenant-archive/import-journal.ts):
 * `running` while the process that runs it keeps `heartbeat_at` fresh; `committed` in the rows'
 * transaction; `failed` when it was refused and cleaned up; `abandoned` when the sweep found it
 * dead (kill -9) and deleted its files.
 */
export interface TenantImportsTable {
  id: string;
  /** The tenant id the import creates (no foreign key: the tenant exists only once committed). */
  tenant_id: string;
  subdomain: string;
  status: string;
  host: string;
  pid: number;
  /** The temporary folder the rows are staged in (removed by the sweep when on the same host). */
  staging_dir: string | null;
  error: string | null;
  created_at: number;
  heartbeat_at: number;
  finished_at: number | null;
}

/** Every blob key a running import may write, recorded (committed) before it is written. */
export interface TenantImportBlobsTable {
  import_id: string;
  key: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    service_instances: ServiceInstancesTable;
    tenant_exports: TenantExportsTable;
    tenant_imports: TenantImportsTable;
    tenant_import_blobs: TenantImportBlobsTable;
  }
}
