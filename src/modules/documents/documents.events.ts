/** A document version in an event's data. */
export interface DocumentVersionEventData {
  document_id: string;
  version: number;
  filename: string;
  file_type: string;
  file_size: number;
  sha256: string;
  created_by: string | null;
}

/** The events the documents module emits (an upload stored; a document's filename, folder or tags changed), with their data. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'document.uploaded': {
      document_id: string;
      filename: string;
      folder_id: string | null;
      file_type: string;
      file_size: number;
      status: string;
      ai_status: string;
    };
    /** `fields`: which of `filename`, `folder_id`, `tags` changed. */
    'document.updated': { document_id: string; fields: string[]; filename: string; folder_id: string | null };
    /** A new file became the document's current version (docs/versions.md); its processing follows. */
    'document.version_created': DocumentVersionEventData;
    /** An earlier version became current again (`version` is its number); its processing follows. */
    'document.version_restored': DocumentVersionEventData & { previous_version: number };
  }
}
