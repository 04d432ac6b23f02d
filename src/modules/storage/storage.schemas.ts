import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/common-schemas.ts';
import { PROVIDERS } from './storage-providers.ts';

const Provider = Type.Union(
  PROVIDERS.map((p) => Type.Literal(p)),
  {
    description:
      "`shared` (the service default), `dedicated` (the tenant's own store, set by the operator) or `customer` (the customer's bucket).",
  },
);

export const TenantIdParams = Type.Object(
  { tenant_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const MigrationIdParams = Type.Object(
  { migration_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

/** `PUT /admin/storage/config/{tenant_id}`: the customer's S3-compatible bucket. */
export const CustomerTargetBody = Type.Object(
  {
    endpoint: Type.Optional(
      Nullable(
        Type.String({ format: 'uri', maxLength: 2048, description: 'S3 API endpoint; null or absent: AWS itself.' }),
      ),
    ),
    bucket: Type.String({ minLength: 3, maxLength: 63 }),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Default `us-east-1`.' })),
    prefix: Type.Optional(
      Type.String({
        maxLength: 512,
        pattern: '^[^\\\\]*$',
        description: 'Key prefix inside the bucket; default none.',
      }),
    ),
    access_key_id: Type.String({ minLength: 1, maxLength: 256 }),
    secret_access_key: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'Encrypted at rest; never shown again.',
    }),
    force_path_style: Type.Optional(
      Type.Boolean({ description: 'Path-style addressing (MinIO, Ceph); default false.' }),
    ),
  },
  { additionalProperties: false },
);

export const MigrateBody = Type.Object(
  {
    target_provider: Provider,
    initiated_by_email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 320,
        description: 'Who is told when it finishes; default STORAGE_NOTIFY_EMAIL.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

/** The storage migration record (spec "Storage migration (administrator)"). */
const recordFields = {
  id: Type.String(),
  tenant_id: Type.String(),
  source_provider: Type.String(),
  target_provider: Type.String(),
  status: Type.String({
    description: '`pending`, `in_progress`, `completed`, `completed_with_errors`, `failed`, `cancelled`.',
  }),
  phase: Type.String({ description: '`preparation`, `copy`, `cutover`, `completion`, `done`.' }),
  total_files: Type.Integer(),
  migrated_files: Type.Integer(),
  failed_files: Type.Integer(),
  skipped_files: Type.Integer(),
  total_bytes: Type.Integer(),
  migrated_bytes: Type.Integer(),
  initiated_by_email: Nullable(Type.String()),
  error: Nullable(Type.String()),
  cancel_reason: Nullable(Type.String()),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  cancelled_at: Nullable(Timestamp),
  source_purge_at: Nullable(Timestamp),
  source_purged_at: Nullable(Timestamp),
};
export const MigrationRecord = Type.Object(recordFields);

export const MigrationStatusView = Type.Object({
  ...recordFields,
  progress_percent: Type.Number(),
  current_file: Nullable(Type.String()),
  estimated_completion: Nullable(Timestamp),
});

export const MigrationHistory = Type.Object({ migrations: Type.Array(MigrationRecord), count: Type.Integer() });

export const FailedFiles = Type.Object({
  failed_files: Type.Array(
    Type.Object({
      file_id: Type.String(),
      file_path: Type.String(),
      error: Nullable(Type.String()),
      attempts: Type.Integer(),
      last_attempt: Nullable(Timestamp),
    }),
  ),
  total_failed: Type.Integer(),
});

export const StorageConfigView = Type.Object({
  tenant_id: Type.String(),
  current_provider: Type.String(),
  write_provider: Type.String({ description: 'Where new uploads go (the target while a migration copies).' }),
  read_providers: Type.Array(Type.String(), { description: 'Where downloads look, in order.' }),
  available_targets: Type.Array(Type.String(), {
    description: 'Supported migration targets from the current provider.',
  }),
  targets: Type.Object({
    shared: Type.Object({ configured: Type.Boolean() }),
    dedicated: Type.Object({ configured: Type.Boolean(), location: Nullable(Type.String()) }),
    customer: Type.Object({
      configured: Type.Boolean(),
      endpoint: Type.Optional(Nullable(Type.String())),
      bucket: Type.Optional(Type.String()),
      region: Type.Optional(Type.String()),
      prefix: Type.Optional(Type.String()),
      access_key_id: Type.Optional(Type.String({ description: 'Masked: only the last 4 characters are shown.' })),
      secret_access_key: Type.Optional(Type.String({ description: 'Always masked.' })),
      force_path_style: Type.Optional(Type.Boolean()),
      verified_at: Type.Optional(Timestamp),
    }),
  }),
});
