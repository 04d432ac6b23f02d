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

declare module '../../db/schema.ts' {
  interface DB {
    service_instances: ServiceInstancesTable;
  }
}
