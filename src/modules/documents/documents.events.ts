import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.ts';
import type { EventSchemas } from '../../events/event-catalogue.ts';

/*
 * The events the documents module emits (an upload stored; a document's filename, folder or tags
 * changed): each one's data schema is the single declaration its type (`EventDataMap`), its
 * webhook payload in the OpenAPI document and the SDK's `WebhookEvents` come from.
 */

const DocumentUploaded = Type.Object({
  document_id: Type.String(),
  filename: Type.String(),
  folder_id: Nullable(Type.String()),
  file_type: Type.String({ description: 'Media type.' }),
  file_size: Type.Integer({ description: 'Bytes.' }),
  status: Type.String(),
  ai_status: Type.String(),
});

const DocumentUpdated = Type.Object({
  document_id: Type.String(),
  fields: Type.Array(Type.String(), { description: 'Which of `filename`, `folder_id`, `tags` changed.' }),
  filename: Type.String(),
  folder_id: Nullable(Type.String()),
});

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const DOCUMENT_EVENTS = {
  'document.uploaded': DocumentUploaded,
  'document.updated': DocumentUpdated,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'document.uploaded': Static<typeof DocumentUploaded>;
    /** `fields`: which of `filename`, `folder_id`, `tags` changed. */
    'document.updated': Static<typeof DocumentUpdated>;
  }
}
