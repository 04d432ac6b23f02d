import { type Static, Type } from 'typebox';
import type { EventSchemas } from '../../events/event-catalogue.ts';
import { Nullable } from '../../http/common-schemas.ts';

/*
 * The events the documents module emits (an upload stored; a document's filename, folder or tags
 * changed; a new or restored current version): each one's data schema is the single declaration its
 * type (`EventDataMap`), its webhook payload in the OpenAPI document and the SDK's `WebhookEvents`
 * come from.
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

/** A document version (docs/versions.md). */
const versionFields = {
  document_id: Type.String(),
  version: Type.Integer({ minimum: 1, description: 'The version number.' }),
  filename: Type.String({ description: "The version's uploaded file name." }),
  file_type: Type.String({ description: 'Media type.' }),
  file_size: Type.Integer({ description: 'Bytes.' }),
  sha256: Type.String(),
  created_by: Nullable(Type.String({ description: 'The uploading user; null for an API key.' })),
};

const DocumentVersionCreated = Type.Object(versionFields, {
  description: 'A new file became the document’s current version; its processing follows.',
});

const DocumentVersionRestored = Type.Object(
  {
    ...versionFields,
    previous_version: Type.Integer({ minimum: 1, description: 'The version that was current before.' }),
  },
  { description: 'An earlier version became current again (`version`); its processing follows.' },
);

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const DOCUMENT_EVENTS = {
  'document.uploaded': DocumentUploaded,
  'document.updated': DocumentUpdated,
  'document.version_created': DocumentVersionCreated,
  'document.version_restored': DocumentVersionRestored,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'document.uploaded': Static<typeof DocumentUploaded>;
    /** `fields`: which of `filename`, `folder_id`, `tags` changed. */
    'document.updated': Static<typeof DocumentUpdated>;
    'document.version_created': Static<typeof DocumentVersionCreated>;
    'document.version_restored': Static<typeof DocumentVersionRestored>;
  }
}
