/** Where a tenant's bytes are (docs/storage.md). No row: everything in the shared store. */
export interface TenantStorageTable {
  tenant_id: string;
  current_provider: string;
  write_provider: string;
  /** JSON string[]: providers looked in, in order. */
  read_providers: string;
  updated_at: number;
}

/** The customer's own S3-compatible bucket, accepted after a probe. */
export interface StorageCustomerTargetsTable {
  tenant_id: string;
  endpoint: string | null;
  bucket: string;
  region: string;
  prefix: string;
  access_key_id: string;
  /** AES-256-GCM sealed secret access key. */
  secret_sealed: string;
  /** Which encryption key sealed it (keys rotate). */
  key_id: string;
  force_path_style: number;
  verified_at: number;
  created_at: number;
  updated_at: number;
}

export interface StorageMigrationsTable {
  id: string;
  tenant_id: string;
  source_provider: string;
  target_provider: string;
  status: string;
  phase: string;
  total_files: number;
  migrated_files: number;
  failed_files: number;
  skipped_files: number;
  total_bytes: number;
  migrated_bytes: number;
  current_file: string | null;
  initiated_by_email: string | null;
  cancel_reason: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  cancelled_at: number | null;
  purge_at: number | null;
  purged_at: number | null;
  updated_at: number;
}

/** One document of a migration's inventory. */
export interface StorageMigrationFilesTable {
  migration_id: string;
  document_id: string;
  tenant_id: string;
  storage_key: string;
  thumbnail_key: string | null;
  size: number;
  sha256: string;
  status: string;
  attempts: number;
  error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number;
}

/** What operators did and what migrations did, for the record. */
export interface StorageAuditTable {
  id: string;
  tenant_id: string;
  migration_id: string | null;
  action: string;
  /** JSON object. */
  detail: string;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    tenant_storage: TenantStorageTable;
    storage_customer_targets: StorageCustomerTargetsTable;
    storage_migrations: StorageMigrationsTable;
    storage_migration_files: StorageMigrationFilesTable;
    storage_audit: StorageAuditTable;
  }
}
