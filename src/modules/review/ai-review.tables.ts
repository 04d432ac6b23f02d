/**
 * Per document, what people decided about its AI results (docs/processing.md, "Review"), kept apart
 * from the AI's own results so that a reprocess never overwrites them, and its pending review task.
 */
export interface DocumentAiReviewsTable {
  tenant_id: string;
  /** Its document; the row goes with it. */
  document_id: string;
  /** JSON (review-items.ts `Confirmations`): confirmed or corrected type and fields, accepted and rejected tags. */
  confirmed: string;
  /** The review task waiting in the inbox, or null. */
  task_id: string | null;
  updated_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    document_ai_reviews: DocumentAiReviewsTable;
  }
}
