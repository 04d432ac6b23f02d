import { availableParallelism } from 'node:os';
import type { Executor } from '../../db/executor.ts';
import { eventSubscriber } from '../../events/event-log.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import { defineModule } from '../../platform/module.ts';
import type { AiProvider } from '../../providers/ai/ai-provider.ts';
import { createAiProvider } from '../../providers/ai/create-ai-provider.ts';
import { createExtractor } from '../../providers/extraction/extractor.ts';
import type { DocumentJobPayload } from '../documents/index.ts';
import { ChunksRepository, type PassageText, type PassageVector, type StoredPassage } from './chunks.repository.ts';
import { DocumentPipeline, type EnrichmentReviewer } from './document-pipeline.ts';
import { LearnedTagsRepository } from './learned-tags.repository.ts';
import { LearnedTags } from './learned-tags.service.ts';
import { PROCESSING_EVENTS } from './processing.events.ts';
import { LEGACY_EXTRACT_JOB, PROCESSING_JOBS } from './processing.jobs.ts';
import { Reembedder } from './reembed.ts';
import { startProcessing } from './start-processing.ts';

/** A document's passages as processing stored them, with vectors of the current embedding model. */
export interface PassageStore {
  forDocument(db: Executor, tenantId: string, documentId: string): Promise<StoredPassage[]>;
  /** The texts of these passages (search highlights a semantic hit's best passage). */
  texts(db: Executor, tenantId: string, wanted: { documentId: string; chunkIndex: number }[]): Promise<PassageText[]>;
  /** The tenant's documents with vectors of `embeddingModel` (`<model>:<dimensions>`): search's vector cache, loading. */
  embeddedDocuments(db: Executor, tenantId: string, embeddingModel: string): Promise<string[]>;
  /** These documents' vectors of `embeddingModel`, undecoded, in passage order: search's vector cache, refreshing. */
  vectors(
    db: Executor,
    tenantId: string,
    embeddingModel: string,
    documentIds: string[],
  ): Promise<Map<string, PassageVector[]>>;
}

export type { PassageText, PassageVector, StoredPassage } from './chunks.repository.ts';
export type { EnrichmentReviewer } from './document-pipeline.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** The configured AI provider (local or OpenAI-compatible), for search and chat. */
    ai: AiProvider;
    passages: PassageStore;
    /**
     * Where the AI review queue hooks into enrichment: the one reviewer (set by the module that owns
     * it), and the types people confirm, which the learned tags learn from.
     */
    enrichmentReview: {
      use(reviewer: EnrichmentReviewer): void;
      typeConfirmed(trx: Executor, tenantId: string, documentId: string, documentType: string | null): Promise<void>;
    };
  }
}

/**
 * Processing: every upload's text (parsers, OCR, transcription), AI enrichment (summary, type, key
 * fields, tags extracted and learned from the tenant's tagging, entities) and passages with
 * embeddings, as durable jobs (docs/processing.md). It starts on documents' `onStored` hook
 * (start-processing.ts). Storing passages fires the `search_chunks_*` triggers (the vector change
 * log search follows; src/db/schema.sqlite.sql, src/db/schema.postgres.sql).
 */
export const processingModule = defineModule({
  name: 'processing',
  setup({ config, database, clock, logger, blobs, jobs, events, use }) {
    const ai = createAiProvider({
      provider: config.ai.provider,
      threaded: true,
      openai: {
        ...config.ai.openai,
        baseUrl: config.ai.openai.baseUrl ?? undefined,
        apiKey: config.ai.openai.apiKey ?? undefined,
        embeddingDimensions: config.ai.openai.embeddingDimensions ?? undefined,
        transcriptionModel: config.ai.openai.transcriptionModel ?? undefined,
        tokensPerMinute: config.ai.openai.tokensPerMinute ?? undefined,
      },
    });
    const threads = config.processing.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1));
    const { timeoutMs, ocrPageTimeoutMs, maxTimeoutMs, memoryMb, maxDecodedMb } = config.processing;
    const extractor = createExtractor({
      threads,
      timeoutMs,
      ocrPageTimeoutMs,
      maxTimeoutMs,
      memoryMb,
      maxDecodedMb,
      ocrProcesses: config.processing.ocrProcesses ?? undefined,
    });
    const chunks = new ChunksRepository();
    const learnedTagsRepository = new LearnedTagsRepository();
    const store = use('documentPipeline');
    const learnedTags = new LearnedTags({ database, clock, jobs, repository: learnedTagsRepository, store });
    const embeddingModel = `${ai.embeddingModel}:${ai.embeddingDimensions}`;
    const pipeline = new DocumentPipeline({
      database,
      clock,
      logger,
      blobs,
      jobs,
      events,
      store,
      chunks,
      tenants: use('tenantDirectory'),
      extractor,
      ai,
      learnedTags,
    });
    const reembedder = new Reembedder({ database, jobs, chunks, ai, logger });
    // Every document stored by an upload or sent back by a reprocess starts the pipeline, in that transaction.
    store.onStored((trx, documents, cause) => startProcessing(jobs, trx, documents, cause));
    const extract = {
      handler: (job: RunningJob<DocumentJobPayload>) => pipeline.extract(job),
      maxAttempts: 3,
      // As many files at once as there are extraction threads: more would only queue inside the pool.
      concurrency: threads,
      // OCR of a long scan takes minutes; the lease is kept alive by the worker's heartbeat.
      timeoutMs: 30 * 60_000,
    };
    return {
      eventSchemas: PROCESSING_EVENTS,
      provides: {
        ai,
        passages: {
          forDocument: (db, tenantId, documentId) => chunks.forDocument(db, tenantId, documentId, embeddingModel),
          texts: (db, tenantId, wanted) => chunks.texts(db, tenantId, wanted),
          embeddedDocuments: (db, tenantId, model) => chunks.embeddedDocuments(db, tenantId, model),
          vectors: (db, tenantId, model, documentIds) => chunks.vectors(db, tenantId, model, documentIds),
        },
        enrichmentReview: {
          use: (reviewer) => pipeline.useReviewer(reviewer),
          typeConfirmed: (trx, tenantId, documentId, documentType) =>
            learnedTags.typeConfirmed(trx, tenantId, documentId, documentType),
        },
      },
      jobs: [
        { kind: PROCESSING_JOBS.extract, ...extract },
        // Jobs of the old kind name still waiting in a database written by an older version.
        { kind: LEGACY_EXTRACT_JOB, ...extract },
        {
          kind: PROCESSING_JOBS.enrich,
          handler: (job) => pipeline.enrich(job),
          maxAttempts: 5,
          backoff: { baseMs: 5_000, maxMs: 600_000 },
          timeoutMs: 10 * 60_000,
        },
        {
          kind: PROCESSING_JOBS.index,
          handler: (job) => pipeline.index(job),
          maxAttempts: 5,
          backoff: { baseMs: 5_000, maxMs: 600_000 },
          timeoutMs: 10 * 60_000,
        },
        {
          kind: PROCESSING_JOBS.reembed,
          handler: (job) => reembedder.batch(job),
          concurrency: 1,
          maxAttempts: 5,
          backoff: { baseMs: 5_000, maxMs: 600_000 },
          timeoutMs: 10 * 60_000,
        },
        {
          kind: PROCESSING_JOBS.learnTags,
          handler: (job) => learnedTags.train(job),
          maxAttempts: 5,
          // One training per tenant at a time (its unique key); two at once would only share the two cores.
          concurrency: 1,
          backoff: { baseMs: 10_000, maxMs: 600_000 },
          timeoutMs: 10 * 60_000,
        },
      ],
      // Vectors of another model (an upgrade, a changed OpenAI model): re-embedded in the background.
      recurring: [{ kind: 'processing.reembed-check', everyMs: 60_000, run: () => reembedder.check() }],
      // A change of a document's tags is a change of what the tenant's learned tags learn from.
      onEvent: eventSubscriber(
        async (event) => {
          if (
            event.name === 'document.updated' &&
            Array.isArray(event.data['fields']) &&
            event.data['fields'].includes('tags')
          ) {
            await learnedTags.tagsChanged(database.db, event.tenantId);
          }
        },
        { names: ['document.updated'] },
      ),
      capabilities: () => ({
        ai_provider: ai.name,
        embedding_model: embeddingModel,
        reembedding: { remaining_documents: reembedder.progress.remaining, done: reembedder.progress.done },
        ocr: extractor.capabilities().ocr,
        ocr_engine: extractor.capabilities().ocrEngine,
        video_audio: extractor.capabilities().ffmpeg,
        transcription: ai.canTranscribe,
      }),
      async close() {
        await extractor.close();
        await ai.close?.();
      },
      async sandboxCleanup(trx, tenantId) {
        await trx.deleteFrom('document_chunks').where('tenant_id', '=', tenantId).execute();
        await learnedTagsRepository.deleteForTenant(trx, tenantId);
      },
    };
  },
});
