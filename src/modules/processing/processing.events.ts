/** The events the processing pipeline emits when a document's processing ends (document-pipeline.ts), with their data. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    /** Spec: exactly `document_id`, `status`, `ai_summary`, `ai_tags`. */
    'document.processed': { document_id: string; status: string; ai_summary: string | null; ai_tags: string[] };
    'document.failed': { document_id: string; status: string; ai_status: string; error: { stage: string; message: string } | null };
  }
}
