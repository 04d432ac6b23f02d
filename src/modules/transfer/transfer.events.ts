import { type Static, Type } from 'typebox';
import type { EventSchemas } from '../../events/event-catalogue.ts';
import { Nullable } from '../../http/common-schemas.ts';

/*
 * The events the transfer module emits (docs/webhooks.md, docs/tenant-export.md): each one's data
 * schema is the single declaration its type, its webhook payload in the OpenAPI document and the
 * SDK's `WebhookEvents` come from.
 */

const TenantExportCompleted = Type.Object({
  export_id: Type.String(),
  status: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
  size: Nullable(Type.Integer({ description: 'The archive’s bytes (null when failed).' })),
  sha256: Nullable(Type.String({ description: 'Hex SHA-256 of the archive (null when failed).' })),
  expires_at: Nullable(
    Type.String({ format: 'date-time', description: 'Until when it can be downloaded (null when failed).' }),
  ),
  error: Nullable(Type.String({ description: 'Why it failed (null when completed).' })),
});

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const TRANSFER_EVENTS = {
  'tenant.export.completed': TenantExportCompleted,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    /** A tenant export finished: its archive can be downloaded until `expires_at`. */
    'tenant.export.completed': Static<typeof TenantExportCompleted>;
  }
}
