import type { Generated } from 'kysely';

/**
 * The change log of identity rows (API keys, users, sessions, tenants), appended by triggers.
 * SQLite deployments read it to invalidate their credential caches across processes; on
 * PostgreSQL the same triggers notify instead and the table stays empty.
 */
export interface IdentityChangesTable {
  /** AUTOINCREMENT: commits in order, never reused. */
  seq: Generated<number>;
  /** `k:<api key id>`, `u:<user id>`, `s:<session id>`, `t:<tenant id>`. */
  tag: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    identity_changes: IdentityChangesTable;
  }
}
