import type { RecurringTick } from '../../jobs/job-types.ts';
import type { DocumentJobPayload } from '../documents/index.ts';

/** The pipeline's job kinds, in order; the first is the one an upload or a reprocess enqueues (start-processing.ts). */
export const PROCESSING_JOBS = {
  extract: 'processing.extract',
  enrich: 'processing.enrich',
  index: 'processing.index',
  /** Not a pipeline step: passages re-embedded after a change of embedding model (reembed.ts). */
  reembed: 'processing.reembed',
  /** Retrains a tenant's learned tags after its tagging changed (learned-tags.service.ts). */
  learnTags: 'processing.learn_tags',
} as const;

/** One turn of re-embedding: passages of models other than `model` get vectors of it (reembed.ts). */
export interface ReembedPayload {
  model: string;
  turn: number;
}

/** Retrains one tenant's learned tags (learned-tags.service.ts). */
export interface LearnTagsPayload {
  tenantId: string;
}

/**
 * The first step's kind before processing owned its pipeline. Jobs of it may still wait in a
 * database written by an older version: the worker runs them as `processing.extract`.
 */
export const LEGACY_EXTRACT_JOB = 'documents.process';

/** The processing module's job kinds and their payloads. */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'processing.extract': DocumentJobPayload;
    /** Legacy alias of `processing.extract` (LEGACY_EXTRACT_JOB): run, never enqueued. */
    'documents.process': DocumentJobPayload;
    'processing.enrich': DocumentJobPayload;
    'processing.index': DocumentJobPayload;
    'processing.reembed': ReembedPayload;
    'processing.learn_tags': LearnTagsPayload;
    /** Recurring: is anything left to re-embed (reembed.ts)? */
    'processing.reembed-check': RecurringTick;
  }
}
