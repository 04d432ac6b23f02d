import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { TenantDirectory } from '../../domain/tenant.ts';
import { TIER_LIMITS } from '../../domain/tiers.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { JobLostError, type RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { AiProviderError } from '../../providers/ai/ai-provider-error.ts';
import { type AiProvider, type Enrichment, plainEntities, type TagSuggestion } from '../../providers/ai/ai-provider.ts';
import { chunkText } from '../../providers/ai/chunking.ts';
import { withBlobAsFile } from '../../providers/blobs/blob-as-file.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { type ExtractedContent, ExtractionError, type Extractor } from '../../providers/extraction/extractor.ts';
import {
  type AiEnrichment,
  type Document,
  type DocumentJobPayload,
  type DocumentPipelineStore,
  documentTransitions,
  type ProcessingError,
} from '../documents/index.ts';
import type { ChunksRepository, NewChunk } from './chunks.repository.ts';
import type { Terms } from './learned-tag-model.ts';
import { withDocumentType } from './learned-tag-terms.ts';
import type { LearnedTags } from './learned-tags.service.ts';
import { PageProgress, type Pages } from './page-progress.ts';
import { PROCESSING_JOBS } from './processing.jobs.ts';

/** Texts per embedding call: large enough to amortise a remote call, small enough for its limits. */
const EMBED_BATCH = 64;
/** The tenant's tag names offered to enrichment (most used first): enough to cover a library's vocabulary. */
const KNOWN_TAGS = 500;

export type ProcessingStage = 'extraction' | 'transcription' | 'enrichment' | 'embedding';

interface Deps {
  database: Database;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  jobs: JobQueue;
  events: EventLog;
  store: DocumentPipelineStore;
  chunks: ChunksRepository;
  tenants: TenantDirectory;
  extractor: Extractor;
  ai: AiProvider;
  learnedTags: LearnedTags;
}

/**
 * Looks at a document's AI results before they are stored (the AI review queue): in the enrichment's
 * transaction it may hold results back for a person, and lay values a person confirmed over the
 * AI's. The document shows what it answers.
 */
export interface EnrichmentReviewer {
  review(trx: Executor, doc: Document, enrichment: AiEnrichment): Promise<AiEnrichment>;
}

/** What enrichment made of a document, before it is stored. */
interface Enriched {
  enrichment: Enrichment;
  terms: Terms;
  /** Whether the document carries tags of the tenant's (given at upload: it is then a training example for learned tags). */
  tagged: boolean;
}

/** Failed for good: the document is marked failed at once instead of being retried. */
class StageFailure extends Error {
  readonly stage: ProcessingStage;
  constructor(stage: ProcessingStage, message: string) {
    super(message);
    this.name = 'StageFailure';
    this.stage = stage;
  }
}

/**
 * The processing of one document, as three durable jobs, each retried alone:
 *
 * 1. **extract** (`processing.extract`): the file's text (OCR, transcription) and metadata;
 * 2. **enrich** (`processing.enrich`, AI on): summary, type, key fields, tags (extracted and learned)
 *    and entities, passed through the reviewer (the AI review queue) when one is set;
 * 3. **index** (`processing.index`): passages and their embeddings, then `completed` and the
 *    `document.processed` event, written in one transaction.
 *
 * A step that fails for good (a broken file, an AI endpoint refusing) marks the document with
 * `processing_error {stage, message}` and emits `document.failed`; a passing failure (network, a
 * restarted worker) retries the step. When extraction succeeded but AI failed, the text stays
 * searchable: `status: completed`, `ai_status: failed`.
 */
export class DocumentPipeline {
  readonly #deps: Deps;
  #reviewer: EnrichmentReviewer | null = null;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  /** Sets the reviewer every enrichment passes through (the review module, set up after the task inbox). */
  useReviewer(reviewer: EnrichmentReviewer): void {
    if (this.#reviewer) throw new Error('an enrichment reviewer is already set');
    this.#reviewer = reviewer;
  }

  async extract(job: RunningJob<DocumentJobPayload>): Promise<void> {
    const doc = await this.#load(job.payload);
    if (!doc) return;
    await this.#guard(job, doc, 'extraction', async () => {
      const { blobs, extractor } = this.#deps;
      const input = { extension: doc.extension, mediaType: doc.fileType, signal: job.signal };
      await this.#progress(doc, 'extraction', null);
      const pages = new PageProgress(
        (read) => this.#progress(doc, 'extraction', read),
        () => this.#deps.clock.now(),
      );
      const { content, note } = await withBlobAsFile(blobs, doc.storageKey, `file.${doc.extension}`, async (path) => {
        try {
          const extracted = await extractor.extract({ ...input, path, onProgress: pages.report });
          if (!extracted.media) return { content: extracted, note: null };
          return this.#transcribe(doc, extracted, { ...input, path }, job.signal);
        } finally {
          // No page report may land after the steps that follow (the last one clears the progress).
          await pages.settled();
        }
      });
      const { database, store, clock, jobs } = this.#deps;
      const now = clock.now();
      const wantsAi = doc.enableAi && content.text.trim() !== '';
      await database.db.transaction().execute(async (trx) => {
        await store.saveContent(trx, {
          tenantId: doc.tenantId,
          documentId: doc.id,
          text: content.text,
          pages: content.pages,
          at: now,
        });
        await store.update(trx, doc.tenantId, doc.id, {
          metadata: { ...doc.metadata, ...content.metadata },
          // Why AI was skipped, when the reason is worth telling (media nobody could transcribe).
          ...documentTransitions.extracted(wantsAi, note ? { stage: 'transcription', message: note } : null),
          updatedAt: now,
        });
        const next = wantsAi ? PROCESSING_JOBS.enrich : PROCESSING_JOBS.index;
        await jobs.enqueue(trx, next, job.payload, { tenantId: doc.tenantId, priority: job.priority });
        await job.completeIn(trx);
      });
    });
  }

  async enrich(job: RunningJob<DocumentJobPayload>): Promise<void> {
    const doc = await this.#load(job.payload);
    if (!doc) return;
    const { database, store, clock, jobs, learnedTags } = this.#deps;
    const content = await store.findContent(database.db, doc.tenantId, doc.id);
    if (!content) throw new Error('no extracted text to enrich (extraction has not run)');
    await this.#progress(doc, 'enrichment');
    let enriched: Enriched | null = null;
    let failure = '';
    try {
      enriched = await this.#enrichText(job, doc, content.text);
    } catch (error) {
      if (!this.#givesUp(job, error)) throw error;
      failure = messageOf(error);
    }
    const now = clock.now();
    await database.db.transaction().execute(async (trx) => {
      if (enriched) {
        const proposed = storedEnrichment(enriched.enrichment);
        const shown = this.#reviewer ? await this.#reviewer.review(trx, doc, proposed) : proposed;
        // The learned tags learn from the type the document shows: a person's correction over the AI's,
        // none while it waits for review or once rejected (the review's decision sets it then).
        const terms = withDocumentType(enriched.terms, shown.documentType?.value ?? null);
        await learnedTags.enriched(trx, doc.tenantId, doc.id, terms, { tagged: enriched.tagged });
        await store.update(trx, doc.tenantId, doc.id, {
          ...enrichmentPatch(enriched.enrichment, shown),
          updatedAt: now,
        });
      } else {
        await store.update(trx, doc.tenantId, doc.id, {
          ...documentTransitions.enrichmentFailed({ stage: 'enrichment', message: failure }),
          updatedAt: now,
        });
      }
      // The text is indexed either way: a document whose AI failed is still found by keyword.
      await jobs.enqueue(trx, PROCESSING_JOBS.index, job.payload, { tenantId: doc.tenantId, priority: job.priority });
      await job.completeIn(trx);
    });
  }

  /** The provider's enrichment, with the tenant's learned tags that fit the document first among its tags. */
  async #enrichText(job: RunningJob<DocumentJobPayload>, doc: Document, text: string): Promise<Enriched> {
    const { ai, database, store, learnedTags } = this.#deps;
    const [knownTags, carried] = await Promise.all([
      store.tagNames(database.db, doc.tenantId, KNOWN_TAGS),
      store.tagsOf(database.db, doc.tenantId, [doc.id]),
    ]);
    // The upload date resolves a year-less date only when the document has no date of its own.
    const enrichment = await ai.enrich(text, { signal: job.signal, referenceDate: new Date(doc.createdAt), knownTags });
    const terms = learnedTags.terms(text, enrichment.documentType.value);
    const own = carried.get(doc.id) ?? [];
    const learned = await learnedTags.propose(database.db, doc.tenantId, terms, { existing: knownTags, carried: own });
    return {
      enrichment: { ...enrichment, tags: withLearnedTags(enrichment.tags, learned) },
      terms,
      tagged: own.length > 0,
    };
  }

  async index(job: RunningJob<DocumentJobPayload>): Promise<void> {
    const doc = await this.#load(job.payload);
    if (!doc) return;
    const { ai, database, store, chunks, clock, events } = this.#deps;
    await this.#progress(doc, 'embedding');
    const content = await store.findContent(database.db, doc.tenantId, doc.id);
    const passages = content ? chunkText(content.text, { pages: content.pages }) : [];
    const embed = doc.aiStatus === 'processing';
    let vectors: (Float32Array | null)[] = passages.map(() => null);
    let failure: string | null = null;
    if (embed && passages.length > 0) {
      try {
        vectors = [];
        for (let i = 0; i < passages.length; i += EMBED_BATCH) {
          const batch = passages.slice(i, i + EMBED_BATCH).map((p) => p.text);
          vectors.push(...(await ai.embed(batch, { signal: job.signal, purpose: 'document' })));
        }
      } catch (error) {
        if (!this.#givesUp(job, error)) throw error;
        failure = messageOf(error);
        vectors = passages.map(() => null);
      }
    }
    const rows: NewChunk[] = passages.map((p, i) => ({
      index: p.index,
      page: p.page,
      text: p.text,
      embedding: vectors[i] ?? null,
    }));
    const now = clock.now();
    await database.db.transaction().execute(async (trx) => {
      await job.completeIn(trx);
      const current = await store.find(trx, doc.tenantId, doc.id);
      if (!current) return;
      await chunks.replace(trx, doc.tenantId, doc.id, rows, `${ai.embeddingModel}:${ai.embeddingDimensions}`, now);
      await store.clearProgress(trx, doc.tenantId, doc.id);
      const embeddingError: ProcessingError | null = failure ? { stage: 'embedding', message: failure } : null;
      const indexed = documentTransitions.indexed(current, embeddingError);
      await store.update(trx, doc.tenantId, doc.id, { ...indexed, updatedAt: now });
      const { aiStatus, processingError: error } = indexed;
      if (aiStatus === 'failed') {
        await events.record(trx, {
          tenantId: doc.tenantId,
          name: 'document.failed',
          at: now,
          data: { document_id: doc.id, status: 'completed', ai_status: aiStatus, error },
        });
      } else {
        await events.record(trx, {
          tenantId: doc.tenantId,
          name: 'document.processed',
          at: now,
          data: { document_id: doc.id, status: 'completed', ai_summary: current.aiSummary, ai_tags: current.aiTags },
        });
      }
    });
  }

  /** Audio is transcribed as is, video through its audio track; without a way to, AI is skipped and the reason kept. */
  async #transcribe(
    doc: Document,
    extracted: ExtractedContent,
    input: { path: string; extension: string; mediaType: string },
    signal: AbortSignal,
  ): Promise<{ content: ExtractedContent; note: string | null }> {
    const { ai, extractor, tenants } = this.#deps;
    if (!doc.enableAi) return { content: extracted, note: null };
    if (!ai.canTranscribe) {
      return {
        content: extracted,
        note: 'transcription needs an OpenAI-compatible speech endpoint (AI_PROVIDER=openai); the media metadata was kept',
      };
    }
    if (extracted.media?.kind === 'video') {
      const tenant = await tenants.findById(doc.tenantId);
      if (!tenant || !TIER_LIMITS[tenant.tier].features.videoTranscription) {
        return {
          content: extracted,
          note: 'video transcription is included from the Pro tier; the media metadata was kept',
        };
      }
    }
    await this.#progress(doc, 'transcription');
    const audio = await extractor.audioTrack({ ...input, signal });
    if (audio === null)
      return {
        content: extracted,
        note: 'ffmpeg is not installed, so the audio of videos cannot be transcribed; the media metadata was kept',
      };
    try {
      const text = (await ai.transcribe(audio, { signal })) ?? '';
      return { content: { ...extracted, text, metadata: { ...extracted.metadata, transcribed: true } }, note: null };
    } catch (error) {
      if (error instanceof AiProviderError && !error.retryable) throw new StageFailure('transcription', error.message);
      throw error;
    } finally {
      if (audio !== input.path) await import('node:fs/promises').then((fs) => fs.rm(audio, { force: true }));
    }
  }

  /**
   * Shows where the document's processing is (`pages`: read of total, null for none known, absent
   * to keep them). Only a view: a failure (the document deleted meanwhile) is logged, not the step's.
   */
  async #progress(doc: Document, stage: ProcessingStage, pages?: Pages | null): Promise<void> {
    const { database, store, clock, logger } = this.#deps;
    try {
      await store.saveProgress(database.db, {
        tenantId: doc.tenantId,
        documentId: doc.id,
        stage,
        ...(pages !== undefined ? { pages } : {}),
        at: clock.now(),
      });
    } catch (error) {
      logger.debug({ err: error, documentId: doc.id, stage }, 'processing progress not recorded');
    }
  }

  /** The document to work on, or null when it was deleted meanwhile (the job then has nothing to do). */
  #load(payload: DocumentJobPayload): Promise<Document | null> {
    return this.#deps.store.find(this.#deps.database.db, payload.tenantId, payload.documentId);
  }

  /** Runs a step; a permanent failure, or the last attempt of a passing one, fails the document. */
  async #guard(
    job: RunningJob<DocumentJobPayload>,
    doc: Document,
    stage: ProcessingStage,
    step: () => Promise<void>,
  ): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (error instanceof JobLostError) throw error; // another run has the job: nothing of ours may commit
      if (error instanceof StageFailure) return this.#fail(job, doc, error.stage, error.message);
      if (error instanceof ExtractionError) return this.#fail(job, doc, stage, error.message);
      if (!this.#givesUp(job, error)) throw error;
      this.#deps.logger.warn({ err: error, documentId: doc.id, stage }, 'document processing failed for good');
      await this.#fail(job, doc, stage, messageOf(error));
    }
  }

  /** Whether to stop retrying: the endpoint refused for good, or this was the job's last attempt. */
  #givesUp(job: RunningJob<unknown>, error: unknown): boolean {
    if (job.signal.aborted) return false; // the worker is stopping: the job is released, not failed
    if (error instanceof AiProviderError && !error.retryable) return true;
    return job.attempt >= job.maxAttempts;
  }

  async #fail(job: RunningJob<unknown>, doc: Document, stage: ProcessingStage, message: string): Promise<void> {
    const { database, store, clock, events } = this.#deps;
    const now = clock.now();
    await database.db.transaction().execute(async (trx: Executor) => {
      await job.completeIn(trx);
      const current = await store.find(trx, doc.tenantId, doc.id);
      if (!current) return;
      const error = { stage, message };
      const failed = documentTransitions.failed(current, error);
      await store.update(trx, doc.tenantId, doc.id, { ...failed, updatedAt: now });
      await store.clearProgress(trx, doc.tenantId, doc.id);
      const { aiStatus } = failed;
      await events.record(trx, {
        tenantId: doc.tenantId,
        name: 'document.failed',
        at: now,
        data: { document_id: doc.id, status: 'failed', ai_status: aiStatus, error },
      });
    });
  }
}

/** An enrichment in its stored form, before any review. */
function storedEnrichment(e: Enrichment): AiEnrichment {
  return {
    summaryConfidence: e.summary.confidence,
    documentType: e.documentType,
    fields: e.fields,
    tags: e.tags,
    entities: e.entities,
    review: null,
  };
}

/** How an enrichment is stored: the spec's summary, tag names and entity lists, and what is shown of the rest (`shown`, after review). */
function enrichmentPatch(
  e: Enrichment,
  shown: AiEnrichment,
): Pick<Document, 'aiSummary' | 'aiTags' | 'entities' | 'aiDocumentType' | 'aiEnrichment'> {
  return {
    aiSummary: e.summary.value,
    aiTags: shown.tags.map((t) => t.name),
    entities: { ...plainEntities(e.entities) },
    aiDocumentType: shown.documentType?.value ?? null,
    aiEnrichment: shown,
  };
}

/** Learned tags first (the tenant's own vocabulary), then the extracted ones they do not repeat. */
function withLearnedTags(extracted: TagSuggestion[], learned: TagSuggestion[]): TagSuggestion[] {
  const names = new Set(learned.map((t) => t.name.toLowerCase()));
  return [...learned, ...extracted.filter((t) => !names.has(t.name.toLowerCase()))];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
