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

declare module '../../db/schema.ts' {
  interface DB {
    service_instances: ServiceInstancesTable;
    tenant_exports: TenantExportsTable;
  }
}
