/**
 * What the learned-tag classifier reads of each document (docs/processing.md, "Learned tags"): its
 * terms, kept when it is enriched (or first trained on), so training never rereads a library's texts.
 */
export interface LearnedTagTermsTable {
  tenant_id: string;
  /** Its document; the row goes with it. */
  document_id: string;
  /** JSON `{term: count}` (learned-tag-terms.ts). */
  terms: string;
  updated_at: number;
}

/** One learned-tag model per tenant, and whether its tagging changed since it was trained. */
export interface LearnedTagModelsTable {
  tenant_id: string;
  /** JSON (learned-tag-model.ts `LearnedTagModel`); null while no tag is on enough documents. */
  model: string | null;
  /** The last tag change (epoch ms) a training must take in; training again when it is newer than `trained_from`. */
  changed_at: number;
  /** The `changed_at` the stored model was trained from; null before the first training. */
  trained_from: number | null;
  trained_at: number | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    learned_tag_terms: LearnedTagTermsTable;
    learned_tag_models: LearnedTagModelsTable;
  }
}
