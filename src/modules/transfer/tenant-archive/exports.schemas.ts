import { Type } from 'typebox';
import { TIERS } from '../../../domain/tiers.ts';
import { Nullable, Timestamp } from '../../../http/common-schemas.ts';

export const ExportView = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    status: Type.String({ enum: ['queued', 'running', 'completed', 'failed', 'expired'] }),
    phase: Type.String({
      description: '`queued`, `rows` (writing the resources), `files` (packing the archive), `done`.',
    }),
    progress: Type.Object({
      entries_total: Type.Integer(),
      entries_done: Type.Integer(),
      bytes_total: Type.Integer(),
      bytes_done: Type.Integer(),
      percent: Type.Number({ description: 'Of the bytes while packing; 0-100.' }),
    }),
    size: Nullable(Type.Integer({ description: 'The archive’s bytes, once completed.' })),
    sha256: Nullable(
      Type.String({ description: 'Hex SHA-256 of the whole archive, once completed (also its download ETag).' }),
    ),
    download_url: Nullable(
      Type.String({
        description: 'Where to download the archive (same credentials; `Range` honoured) while it is kept.',
      }),
    ),
    expires_at: Nullable(Timestamp),
    error: Nullable(Type.String()),
    created_at: Timestamp,
    finished_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

export const ExportParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const AdminExportParams = Type.Object(
  {
    tenant_id: Type.String({ minLength: 1, maxLength: 128 }),
    export_id: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { additionalProperties: false },
);
export const TenantIdParams = Type.Object(
  { tenant_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

/** The multipart body of an import, as the OpenAPI document shows it (streamed, never validated as a whole). */
export const ImportMultipartBody = Type.Object({
  subdomain: Type.Optional(
    Type.String({
      description: 'The new tenant’s subdomain (default: the archive’s). Send fields before the archive.',
    }),
  ),
  name: Type.Optional(Type.String({ description: 'The new tenant’s name (default: the archive’s).' })),
  tier: Type.Optional(
    Type.String({
      enum: [...TIERS],
      description: 'The new tenant’s tier (default: the archive’s); its storage must hold the archive’s files.',
    }),
  ),
  archive: Type.Unsafe<unknown>({
    type: 'string',
    format: 'binary',
    description: 'The archive (application/x-tar), last.',
  }),
});

export const ImportReportView = Type.Object(
  {
    tenant: Type.Object({ id: Type.String(), name: Type.String(), subdomain: Type.String(), tier: Type.String() }),
    imported: Type.Record(Type.String(), Type.Integer(), {
      description: 'Rows per resource, and `files`, `thumbnails`.',
    }),
    not_imported: Type.Record(Type.String(), Type.String(), { description: 'What was not imported, and why.' }),
    remapped: Type.Record(Type.String(), Type.Integer(), {
      description: 'Ids already used on this service, given new ones, per resource.',
    }),
    passwords: Type.String({
      enum: ['kept', 'reset'],
      description: '`reset`: the archive was not made by this service; users set a new password.',
    }),
    warnings: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
