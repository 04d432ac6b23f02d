import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.ts';
import type { EventSchemas } from '../../events/event-catalogue.ts';

/*
 * The events the processing pipeline emits when a document's processing ends (document-pipeline.ts):
 * each one's data schema is the single declaration its type, its webhook payload in the OpenAPI
 * document and the SDK's `WebhookEvents` come from.
 */

/** Spec: exactly `document_id`, `status`, `ai_summary`, `ai_tags`. */
const DocumentProcessed = Type.Object({
  document_id: Type.String(),
  status: Type.String(),
  ai_summary: Nullable(Type.String()),
  ai_tags: Type.Array(Type.String()),
});

const DocumentFailed = Type.Object({
  document_id: Type.String(),
  status: Type.String(),
  ai_status: Type.String(),
  error: Nullable(
    Type.Object({ stage: Type.String(), message: Type.String() }, { description: 'The stage that failed and why.' }),
  ),
});

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const PROCESSING_EVENTS = {
  'document.processed': DocumentProcessed,
  'document.failed': DocumentFailed,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    /** Spec: exactly `document_id`, `status`, `ai_summary`, `ai_tags`. */
    'document.processed': Static<typeof DocumentProcessed>;
    'document.failed': Static<typeof DocumentFailed>;
  }
}
