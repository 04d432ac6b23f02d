/** The events the records module emits (docs/records.md, docs/webhooks.md): legal holds placed and released, retention rules at work. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'legal_hold.created': { hold_id: string; name: string; document_ids: string[]; folder_ids: string[] };
    'legal_hold.released': { hold_id: string; name: string };
    /** A retention rule deleted a document whose time was up (`action: delete`, or a review approved). */
    'retention.document_deleted': { rule_id: string; document_id: string; filename: string; folder_id: string | null };
    /** A retention rule sent a document's review to the task inbox (`action: review`). */
    'retention.review_requested': { rule_id: string; document_id: string; filename: string; task_id: string };
    /** A run of a rule finished: what it looked at, deleted, sent to review and left alone under a legal hold. */
    'retention.run_completed': { rule_id: string; folder_id: string; action: string; examined: number; deleted: number; review_requested: number; held: number };
  }
}
