import type { Document, DocumentPatch, ProcessingError } from './documents.repository.ts';

/** What a transition reads of the document it moves on. */
type Current = Pick<Document, 'aiStatus' | 'processingError'>;

/**
 * Every change of a document's `status`, `ai_status` and `processing_error`, by name, in one
 * place: the upload and reprocess (documents) and the pipeline's steps (processing) apply these
 * patches and write no status of their own. The life of a document:
 *
 * ```
 * queued ──extracted──> (AI on: enrich ──enriched | enrichmentFailed──>) ──indexed──> completed
 *    └──────────────── failed (any step, for good) ─────────────────────────────────> failed
 * ```
 *
 * `status` is `processing` until the document is indexed (`completed`) or a step failed for good
 * (`failed`); `ai_status` runs `queued` -> `processing` -> `completed`/`failed`, or is `skipped`.
 */
export const documentTransitions = {
  /** Stored by an upload, or sent back by a reprocess: waiting for extraction. */
  queued(enableAi: boolean) {
    return {
      status: 'processing',
      aiStatus: enableAi ? 'queued' : 'skipped',
      processingError: null,
    } satisfies DocumentPatch;
  },
  /** Text extracted: AI runs next when it is on and there is text; `note` says why AI was skipped, when worth telling. */
  extracted(wantsAi: boolean, note: ProcessingError | null) {
    return { aiStatus: wantsAi ? 'processing' : 'skipped', processingError: note } satisfies DocumentPatch;
  },
  /** AI gave up for good: the text is still indexed, so the document is found by keyword. */
  enrichmentFailed(error: ProcessingError) {
    return { aiStatus: 'failed', processingError: error } satisfies DocumentPatch;
  },
  /** Passages stored: completed. AI completes with it, unless embedding failed (`embeddingError`). */
  indexed(current: Current, embeddingError: ProcessingError | null) {
    const aiStatus = embeddingError ? 'failed' : current.aiStatus === 'processing' ? 'completed' : current.aiStatus;
    return {
      status: 'completed',
      aiStatus,
      processingError: embeddingError ?? current.processingError,
    } satisfies DocumentPatch;
  },
  /** A step failed for good: the document is failed, and so is its AI unless it was skipped. */
  failed(current: Current, error: ProcessingError) {
    return {
      status: 'failed',
      aiStatus: current.aiStatus === 'skipped' ? 'skipped' : 'failed',
      processingError: error,
    } satisfies DocumentPatch;
  },
} as const;
