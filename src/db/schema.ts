import type { Generated } from 'kysely';

/*
 * Table shapes as Kysely sees them: the database's assembly point and the tables of the layers
 * (events, jobs, server secrets, idempotency records); module tables live in their modules.
 * Conventions, the same on both dialects (module tables follow them too):
 * ids are text (UUIDv7 or prefixed), timestamps are epoch milliseconds (BIGINT),
 * booleans are 0/1 integers, JSON is stored as text and parsed by repositories.
 */

export interface EventsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** JSON object. */
  data: string;
  created_at: number;
}

export interface JobsTable {
  id: string;
  kind: string;
  tenant_id: string | null;
  /** JSON payload. */
  payload: string;
  state: string;
  priority: number;
  attempts: number;
  max_attempts: number;
  run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  unique_key: string | null;
  last_error: string | null;
  /** Runs in a row that ended with their lease expiring (the process died); reset by a run that ends. */
  lease_expiries: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/**
 * Every table of the service, assembled by declaration merging: the tables below belong to a layer
 * (named in their `// owner:` comment); each module declares the tables it owns in its own
 * `src/modules/<module>/*.tables.ts` (`declare module '../../db/schema.ts' { interface DB { ... } }`).
 * Only the owner's code names a table in SQL, others go through the owner's public entry;
 * `npm run lint` checks it (scripts/check-table-owners.ts), and that no module table is declared here.
 */
export interface DB {
  events: EventsTable; // owner: src/events
  jobs: JobsTable; // owner: src/jobs
  server_secrets: ServerSecretsTable; // owner: src/db
  idempotency_records: IdempotencyRecordsTable; // owner: src/http
}

/** Secrets generated once and shared by every process (e.g. the CSRF key when AUTH_SECRET is unset). */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

/** The first answer to a request with an Idempotency-Key, replayed for repeats (24 h). */
export interface IdempotencyRecordsTable {
  /** A tenant id, or `admin` for the administrator's endpoints. */
  scope: string;
  /** SHA-256 of the scope and the key (the key itself is not stored). */
  key: string;
  /** Who sent it: `user:<id>`, `key:<id>` or `admin`. */
  principal: string;
  method: string;
  path: string;
  /** SHA-256 of the body (or multipart fields and file hashes); null until a multipart handler declares it. */
  fingerprint: string | null;
  /** `running` or `completed`. */
  state: string;
  status_code: number | null;
  /** Response headers and body, sealed (src/http/idempotency-sealing.ts). */
  headers: string | null;
  body: string | null;
  locked_until: number;
  created_at: number;
  expires_at: number;
}

export type { Generated };
