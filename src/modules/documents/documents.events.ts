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
  }
}
