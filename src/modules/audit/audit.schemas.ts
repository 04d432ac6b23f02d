import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../../http/common-schemas.ts';

/** The filters of `GET /audit` and its export. */
const Filters = {
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'A user id or an API key id: the records of that actor.',
    }),
  ),
  document_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'The records whose target is this document.' }),
  ),
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'An action name, e.g. `document.download` (docs/audit.md).',
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Records at or after this instant.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Records before this instant.' })),
};

export const AuditListQuery = Type.Object({ ...Filters, ...PageQuery }, { additionalProperties: false });

export const AuditExportQuery = Type.Object(
  {
    ...Filters,
    format: Type.Optional(
      Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], {
        default: 'ndjson',
        description: '`ndjson` (default) or `csv`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuditRecordView = Type.Object({
  id: Type.String(),
  at: Timestamp,
  actor_type: Type.String({ description: '`user`, `api_key`, `platform_admin` (the administrator key) or `system`.' }),
  actor_id: Nullable(Type.String()),
  action: Type.String(),
  target_type: Nullable(Type.String()),
  target_id: Nullable(Type.String()),
  outcome: Type.String({ description: '`success`, `denied` (refused by an access rule) or `failed`.' }),
  status: Nullable(Type.Integer({ description: 'The HTTP status the act was answered with.' })),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  request_id: Nullable(Type.String()),
  details: Nullable(Type.Object({}, { additionalProperties: true })),
});

export const AuditPage = Type.Object({
  data: Type.Array(AuditRecordView),
  total: Type.Integer({ description: 'Matching records, counted up to 10 000.' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_capped: Type.Boolean({ description: 'True when more than 10 000 records match: `total` then says 10 000.' }),
});

const BinarySchema = { type: 'string', format: 'binary' };
/** The export's streamed body. */
export const AuditExportBody = Type.Unsafe<Readable>({
  description:
    'Every matching record, newest first: one JSON object per line (`application/x-ndjson`), or CSV with a header row (`text/csv`).',
  content: { 'application/x-ndjson': { schema: BinarySchema }, 'text/csv': { schema: BinarySchema } },
});
