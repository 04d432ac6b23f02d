import type { RecurringTick } from '../../jobs/job-types.ts';
import { DOCUMENT_JOBS, type DocumentJobPayload } from '../documents/index.ts';

/** The pipeline's job kinds, in order; the first is the one an upload enqueues. */
export const PROCESSING_JOBS = {
  extract: DOCUMENT_JOBS.process,
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

/** The processing module's job kinds and their payloads (the first step's kind is declared by documents). */
declare module '../../jobs/job-types.ts' {
  interface JobPayloads {
    'processing.enrich': DocumentJobPayload;
    'processing.index': DocumentJobPayload;
    'processing.reembed': ReembedPayload;
    'processing.learn_tags': LearnTagsPayload;
    /** Recurring: is anything left to re-embed (reembed.ts)? */
    'processing.reembed-check': RecurringTick;
  }
}
