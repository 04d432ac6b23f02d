/**
 * The records module's tables (docs/records.md): retention rules with their last run's progress,
 * the review tasks rules asked for, legal holds and what each names. Built by migration
 * 20261128_0200_records.
 */
export interface RetentionRulesTable {
  id: string;
  tenant_id: string;
  /** The folder the rule governs, with everything below it; the rule goes with the folder. */
  folder_id: string;
  keep_days: number;
  /** `created` or `last_version`. */
  basis: string;
  /** `delete` or `review`. */
  action: string;
  created_by: string | null;
  created_at: number;
  /** `idle`, `running`, `completed` or `failed`: the last (or current) run. */
  run_status: string;
  run_started_at: number | null;
  run_finished_at: number | null;
  run_examined: number;
  run_deleted: number;
  run_review_requested: number;
  run_held: number;
  run_error: string | null;
}

/** One review task per rule and document: asked once, whatever the number of runs. */
export interface RetentionReviewsTable {
  rule_id: string;
  document_id: string;
  tenant_id: string;
  task_id: string;
  /** `pending`, `deleted`, `kept`, `held` (approved while under a legal hold) or `expired`. */
  status: string;
  created_at: number;
}

export interface LegalHoldsTable {
  id: string;
  tenant_id: string;
  name: string;
  /** `active` or `released`. */
  status: string;
  created_by: string | null;
  created_at: number;
  released_by: string | null;
  released_at: number | null;
}

/** A document or folder a hold names (a folder: everything below it too, resolved when checked). */
export interface LegalHoldItemsTable {
  hold_id: string;
  tenant_id: string;
  /** `document` or `folder`. */
  target_type: string;
  target_id: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    retention_rules: RetentionRulesTable;
    retention_reviews: RetentionReviewsTable;
    legal_holds: LegalHoldsTable;
    legal_hold_items: LegalHoldItemsTable;
  }
}
