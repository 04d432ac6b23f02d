import { DOCUMENT_JOBS } from '../documents/index.ts';

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
